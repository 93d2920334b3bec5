import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export const USER_AGENT = 'Service-Webhook/1.0';

export interface SignedRequest {
  deliveryId: string;
  event: string;
  /** The body exactly as sent: fixed when the delivery was made, the same bytes on every attempt. */
  body: string;
  /** The keys of the webhook's signing secret (`signingKeys`). */
  keys: SigningKeys;
  /** While a rotated-out secret still signs (the overlap after a rotation): its keys. */
  previous?: SigningKeys;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/** The two HMAC keys of one signing secret: the secret string's bytes, and the bytes it encodes. */
export interface SigningKeys {
  contract: KeyObject;
  standard: KeyObject;
}

/**
 * The keys of a signing secret (`whsec_...`, as shown to the customer), made once per secret: an HMAC keyed with
 * a KeyObject costs a fraction of one keyed with raw bytes, which Node.js turns into a key on every call.
 */
export function signingKeys(secret: string): SigningKeys {
  return {
    contract: createSecretKey(Buffer.from(secret, 'utf8')),
    standard: createSecretKey(standardWebhooksKey(secret)),
  };
}

/**
 * The headers of one attempt: the contract's `X-Webhook-*` set with its `sha256=` signature (HMAC-SHA256 keyed
 * by the secret string over `{timestamp}.{body}`) and the Standard Webhooks 1.0 set (`webhook-signature`:
 * HMAC-SHA256 keyed by the base64-decoded secret over `{id}.{timestamp}.{body}`), so receivers can use either.
 *
 * During the overlap after a rotation the Standard Webhooks header carries both signatures (the new secret's
 * first, space-separated, as the standard allows), while the contract's single signature stays the old
 * secret's: receivers of either kind keep verifying with the old secret until they switch.
 */
export function deliveryHeaders(request: SignedRequest): Record<string, string> {
  const { deliveryId, event, body, keys, previous, timestamp } = request;
  const contract = createHmac('sha256', (previous ?? keys).contract)
    .update(`${timestamp}.${body}`)
    .digest('hex');
  const standardOf = (k: SigningKeys) =>
    `v1,${createHmac('sha256', k.standard).update(`${deliveryId}.${timestamp}.${body}`).digest('base64')}`;
  const standard = previous ? `${standardOf(keys)} ${standardOf(previous)}` : standardOf(keys);
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Webhook-Event': event,
    'X-Webhook-Id': deliveryId,
    'X-Webhook-Timestamp': String(timestamp),
    'X-Webhook-Signature': `sha256=${contract}`,
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard,
  };
}

/** Standard Webhooks keys HMAC with the bytes the secret encodes: the base64 after `whsec_`. */
function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}
