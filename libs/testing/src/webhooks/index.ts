export {
  WebhookReceiver,
  type ReceivedRequest,
  type WebhookAnswer,
  type WebhookBehaviour,
  type WebhookHang,
  type WebhookRedirect,
  type WebhookReply,
} from './webhook-receiver';
export { verifySignatures, type SignatureCheck, type SignedDelivery } from './webhook-signatures';
