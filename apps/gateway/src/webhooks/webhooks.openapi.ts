import { BREAKER_STATES, DELIVERY_STATUSES, WEBHOOK_EVENTS } from '@emailverify/contracts';
import { type RouteDocs, sameInBothStyles } from '../openapi/api-route';
import { named, nullable, object, str, time } from '../openapi/schema';

// Every webhook route is refused (403 INSUFFICIENT_SCOPE) to a key of the `verify` scope.
// The webhook endpoints have no older variant: the legacy style is the current `data` payload unwrapped, so
// each reply documents one schema and one example for both styles.

const event = named(
  'WebhookEvent',
  { type: 'string', enum: [...WEBHOOK_EVENTS] },
  'What a webhook is told about',
);
const events = { type: 'array', items: event };

const breakerSchema = named(
  'WebhookBreaker',
  object({
    state: {
      type: 'string',
      enum: [...BREAKER_STATES],
      description:
        '`open` after the last WEBHOOK_BREAKER_FAILURES attempts (10 by default) all failed: deliveries to this ' +
        'webhook wait, using none of their attempts, until `retry_at`, when one probe attempt goes ' +
        '(`half_open` until its outcome). A delivered attempt closes it; a failed probe opens it again for twice ' +
        'as long (30 s first, at most an hour). Other webhooks are not affected.',
    },
    retry_at: nullable(time, 'When the probe goes (open) or went (half_open); null while closed'),
    consecutive_failures: { type: 'integer', description: 'Attempts failed in a row since the last success' },
  }),
  "The webhook's circuit breaker",
);

const closedBreaker = { state: 'closed', retry_at: null, consecutive_failures: 0 };

const webhookProperties = {
  id: str,
  url: { type: 'string', description: 'HTTPS address receiving notifications' },
  events,
  is_active: { type: 'boolean' },
  created_at: time,
  updated_at: time,
  last_delivery_status: nullable(
    { type: 'string', enum: ['success', 'failed'] },
    'Outcome of the latest final delivery; null if none has ended',
  ),
  last_delivery_at: nullable(time, 'Time of the latest final delivery outcome'),
  last_error: nullable(str, 'Latest final error (or why the webhook was deactivated); null after a success'),
  secret_rotated_at: nullable(time, 'When the signing secret was last rotated; null if never'),
  previous_secret_expires_at: nullable(
    time,
    'Until when the rotated-out secret still signs beside the new one; null when it no longer does',
  ),
  breaker: breakerSchema,
};

const webhookSchema = named('Webhook', object(webhookProperties), 'A webhook, without its signing secret');

const createdSchema = named(
  'WebhookWithSecret',
  object({
    ...webhookProperties,
    secret: {
      type: 'string',
      description:
        'Signing secret (`whsec_` + base64 of 32 random bytes). Returned only here: store it now, it is never shown again.',
    },
  }),
  'A new webhook with its signing secret (shown once)',
);

const attemptSchema = named(
  'DeliveryAttempt',
  object({
    at: { ...time, description: 'When the attempt started' },
    http_status: nullable(
      { type: 'integer' },
      "The receiver's HTTP status; null when no reply came (refused target, connection error, timeout)",
    ),
    duration_ms: { type: 'integer' },
    error: nullable(str, 'Why the attempt failed; null for a 2xx'),
    response_body: nullable(str, "The first KiB of the receiver's reply body; null when it sent none"),
  }),
  'One attempt to deliver a notification',
);

const deliverySchema = named(
  'Delivery',
  object({
    id: {
      type: 'string',
      description: 'Also the X-Webhook-Id / webhook-id header, the same on every attempt and redelivery',
    },
    event,
    job_id: str,
    status: named('DeliveryStatus', { type: 'string', enum: [...DELIVERY_STATUSES] }, 'Where a delivery is'),
    attempts: { type: 'array', description: 'Oldest first', items: attemptSchema },
    next_attempt_at: nullable(
      time,
      "When the next attempt is due (while the webhook's breaker is open, its probe time at the earliest); null when none is",
    ),
    created_at: time,
  }),
  'A notification of one event to one webhook, with its attempts',
);

const webhookExample = {
  id: '3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34',
  url: 'https://hooks.example.com/emailverify',
  events: ['file.completed', 'file.failed'],
  is_active: true,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
  last_delivery_status: null,
  last_delivery_at: null,
  last_error: null,
  secret_rotated_at: null,
  previous_secret_expires_at: null,
  breaker: closedBreaker,
};

const deliveredWebhookExample = {
  ...webhookExample,
  last_delivery_status: 'success',
  last_delivery_at: '2026-11-22T10:02:14.000Z',
};

const deliveryExample = {
  id: '9b2e4c71-5d3a-4f8e-b6a1-0c7d2e9f4a58',
  event: 'file.completed',
  job_id: '8f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90',
  status: 'success',
  attempts: [
    {
      at: '2026-11-22T10:02:13.100Z',
      http_status: 500,
      duration_ms: 84,
      error: 'HTTP 500',
      response_body: 'upstream unavailable',
    },
    {
      at: '2026-11-22T10:02:18.300Z',
      http_status: 200,
      duration_ms: 61,
      error: null,
      response_body: null,
    },
  ],
  next_attempt_at: null,
  created_at: '2026-11-22T10:02:13.000Z',
};

const { id, url, events: subscribed, ...rest } = webhookExample;
const createdDocs = sameInBothStyles(
  createdSchema,
  {
    id,
    url,
    events: subscribed,
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2hQX3JqJXpA=',
    ...rest,
  },
  'WebhookWithSecret',
);

const rotatedDocs = sameInBothStyles(
  createdSchema,
  {
    id,
    url,
    events: subscribed,
    secret: 'whsec_q2k7HhV0kXl8m2m4k0yqS3i1o5mKQb5Uo3XvS6bD1eA=',
    ...rest,
    updated_at: '2026-11-23T09:00:00.000Z',
    secret_rotated_at: '2026-11-23T09:00:00.000Z',
    previous_secret_expires_at: '2026-11-24T09:00:00.000Z',
  },
  'WebhookWithSecret',
);

const webhookDocs = sameInBothStyles(webhookSchema, webhookExample, 'Webhook');

const listDocs = sameInBothStyles(
  object({
    webhooks: { type: 'array', description: 'Without secrets', items: webhookSchema },
    total: { type: 'integer' },
  }),
  { webhooks: [deliveredWebhookExample], total: 1 },
  'WebhookList',
);

const deletedDocs = sameInBothStyles(
  object({ message: str, webhook_id: str }),
  {
    message: 'Webhook deleted',
    webhook_id: webhookExample.id,
  },
  'WebhookDeleted',
);

const deliveryListDocs = sameInBothStyles(
  object({
    deliveries: { type: 'array', description: 'Newest first', items: deliverySchema },
    next_cursor: nullable(str, 'Pass as `cursor` for the next page; null on the last page'),
    breaker: breakerSchema,
  }),
  { deliveries: [deliveryExample], next_cursor: null, breaker: closedBreaker },
  'DeliveryList',
);

/** A redelivery is due at once: the delivery is pending again, with the same id and body. */
const deliveryDocs = sameInBothStyles(
  deliverySchema,
  {
    ...deliveryExample,
    status: 'pending',
    next_attempt_at: '2026-11-22T11:30:00.000Z',
  },
  'Delivery',
);

const webhookId = {
  webhookId:
    'A webhook of the authenticated account; any other id (malformed included) is 404 WEBHOOK_NOT_FOUND',
};

/** What the document says about each webhook route. */
export const WebhookRoutes = {
  create: {
    operationId: 'createWebhook',
    summary: 'Create a webhook (at most 25 per account)',
    description:
      'The URL must be HTTPS, without user name or password, and not a private IP address. The reply is the only one that carries the signing `secret`.',
    ok: createdDocs,
    errors: ['INSUFFICIENT_SCOPE', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
  },
  list: {
    operationId: 'listWebhooks',
    summary: "The account's webhooks (without secrets)",
    ok: listDocs,
    errors: ['INSUFFICIENT_SCOPE', 'SERVICE_UNAVAILABLE'],
  },
  update: {
    operationId: 'updateWebhook',
    params: webhookId,
    summary: 'Change the url, events or is_active of a webhook (extension)',
    description:
      'Send at least one of the three fields. Setting is_active to true re-activates a webhook that was deactivated.',
    ok: webhookDocs,
    errors: ['INSUFFICIENT_SCOPE', 'WEBHOOK_NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
  },
  rotateSecret: {
    operationId: 'rotateWebhookSecret',
    params: webhookId,
    summary: 'Give a webhook a new signing secret, the old one signing too for a while (extension)',
    description:
      'The reply is the only one that carries the new `secret`. Until `previous_secret_expires_at` ' +
      '(WEBHOOK_SECRET_OVERLAP_HOURS, 24 by default) deliveries are signed with both secrets: `webhook-signature` ' +
      "carries a signature by each, and `X-Webhook-Signature` stays the old secret's, so receivers keep " +
      'verifying while they switch. Afterwards only the new secret signs. Rotating again ends the earlier overlap.',
    ok: rotatedDocs,
    errors: ['INSUFFICIENT_SCOPE', 'WEBHOOK_NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
  },
  remove: {
    operationId: 'deleteWebhook',
    params: webhookId,
    summary: 'Delete a webhook; no further deliveries are made to it',
    ok: deletedDocs,
    errors: ['INSUFFICIENT_SCOPE', 'WEBHOOK_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  },
  deliveries: {
    operationId: 'listDeliveries',
    params: webhookId,
    summary: 'Delivery log of a webhook, newest first (extension)',
    description:
      "Each delivery lists its attempts with HTTP status and duration. Pages are `limit` long (1-100, default 20); pass `next_cursor` as `cursor` for the next one. Deliveries are kept 30 days. `breaker` is the webhook's circuit breaker now: while it is `open`, pending deliveries wait for its probe at `retry_at`.",
    ok: deliveryListDocs,
    errors: ['INSUFFICIENT_SCOPE', 'WEBHOOK_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  },
  redeliver: {
    operationId: 'redeliverDelivery',
    params: { ...webhookId, deliveryId: 'A delivery of that webhook, from its delivery log' },
    summary: 'Send a delivery again now, with the same delivery id and body (extension)',
    description:
      'An unknown delivery is 404 NOT_FOUND; a delivery of an inactive webhook is 400 (activate it first).',
    ok: deliveryDocs,
    errors: [
      'INSUFFICIENT_SCOPE',
      'WEBHOOK_NOT_FOUND',
      'NOT_FOUND',
      'PAYLOAD_TOO_LARGE',
      'SERVICE_UNAVAILABLE',
    ],
  },
} satisfies Record<string, RouteDocs>;
