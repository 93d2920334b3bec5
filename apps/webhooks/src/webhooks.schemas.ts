import { DELIVERY_PAGE, WEBHOOK_EVENTS } from '@emailverify/contracts';
import { accountIdField, parseWith, uuid } from '@emailverify/service-kit';
import { z } from 'zod';

const accountId = accountIdField();
/** Any string: an id that is not a webhook of the account, malformed ones included, is WEBHOOK_NOT_FOUND. */
const anyId = z.string().max(200);
const events = z.array(z.string().max(200)).max(WEBHOOK_EVENTS.length * 4);

/** Payload validation on receipt: a malformed message is refused, never half-applied. */
export const WebhooksPayloads = {
  create: parseWith(z.strictObject({ accountId, url: z.string(), events })),
  list: parseWith(z.strictObject({ accountId })),
  ref: parseWith(z.strictObject({ accountId, webhookId: anyId })),
  update: parseWith(
    z.strictObject({
      accountId,
      webhookId: anyId,
      url: z.string().optional(),
      events: events.optional(),
      isActive: z.boolean().optional(),
    }),
  ),
  deliveries: parseWith(
    z.strictObject({
      accountId,
      webhookId: anyId,
      limit: z.number().int().min(DELIVERY_PAGE.min).max(DELIVERY_PAGE.max),
      cursor: z.string().max(500).optional(),
    }),
  ),
  redeliver: parseWith(z.strictObject({ accountId, webhookId: anyId, deliveryId: anyId })),
};

/** An event from the EVENTS stream: what delivery needs is checked, the body is passed on as it came. */
export const fileEventSchema = z.object({
  event: z.enum(WEBHOOK_EVENTS),
  timestamp: z.string().min(1),
  /** A sandbox job's event (absent for live ones). */
  sandbox: z.literal(true).optional(),
  accountId,
  data: z.object({ job_id: uuid() }).passthrough(),
});
