import type { AccountId } from './ids';
/** Webhook event kinds; no others exist. */
export const WEBHOOK_EVENTS = ['file.completed', 'file.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** At most this many webhooks per account; creating one more is 400 INVALID_REQUEST naming the limit. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 25;

/** Outcome of a delivery: `pending` while attempts remain, then `success` or `failed`. */
export const DELIVERY_STATUSES = ['pending', 'success', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Page size of the delivery log: 1..100, default 20. */
export const DELIVERY_PAGE = { min: 1, max: 100, default: 20 } as const;

/** States of a webhook's circuit breaker. */
export const BREAKER_STATES = ['closed', 'open', 'half_open'] as const;
export type BreakerStateName = (typeof BREAKER_STATES)[number];

/**
 * A webhook's circuit breaker: `open` after its last WEBHOOK_BREAKER_FAILURES attempts all failed (its
 * deliveries wait, none failed for it) until `retryAt`, when one probe attempt goes (`half_open` until its
 * outcome); a delivered attempt closes it.
 */
export interface WebhookBreaker {
  state: BreakerStateName;
  /** When the next probe goes (open) or went (half-open); null while closed. */
  retryAt: string | null;
  /** Attempts failed in a row since the last success. */
  consecutiveFailures: number;
}

/** A webhook as the webhooks service reports it (never with its secret). */
export interface Webhook {
  id: string;
  accountId: AccountId;
  url: string;
  events: WebhookEvent[];
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  /** Outcome of the latest delivery that ended (success or failed); null before any ended. */
  lastDeliveryStatus: 'success' | 'failed' | null;
  lastDeliveryAt: string | null;
  /** Error of the latest final failure (or why the webhook was deactivated); null after a success. */
  lastError: string | null;
  /** When the signing secret was last rotated; null if never. */
  secretRotatedAt: string | null;
  /** Until when the rotated-out secret still signs too; null when it no longer does (or never did). */
  previousSecretExpiresAt: string | null;
  breaker: WebhookBreaker;
}

export interface WebhookCreateRequest {
  accountId: AccountId;
  url: string;
  events: string[];
}
/** The only reply that carries the signing secret (`whsec_` + base64 of 32 random bytes). */
export interface WebhookCreateReply {
  webhook: Webhook;
  secret: string;
}

/** The reply of a rotation: the webhook and its new secret, which no other reply carries. */
export type WebhookRotateReply = WebhookCreateReply;

export interface WebhookListRequest {
  accountId: AccountId;
}
export interface WebhookListReply {
  webhooks: Webhook[];
  total: number;
}

export interface WebhookRef {
  accountId: AccountId;
  /** Any string: one that is not a webhook of the account (malformed included) is WEBHOOK_NOT_FOUND. */
  webhookId: string;
}

export interface WebhookUpdateRequest extends WebhookRef {
  url?: string;
  events?: string[];
  isActive?: boolean;
}

export interface WebhookDeleteReply {
  webhookId: string;
}

export interface DeliveryAttempt {
  /** When the attempt started. */
  at: string;
  /** The receiver's HTTP status; null when no reply came (refused target, connection error, timeout). */
  httpStatus: number | null;
  durationMs: number;
  /** Why the attempt failed; null for a 2xx. */
  error: string | null;
  /** The first KiB of the receiver's reply body, when it sent one. */
  responseBody: string | null;
}

export interface Delivery {
  /** Also the `X-Webhook-Id` / `webhook-id` header: the same on every attempt and redelivery. */
  id: string;
  event: WebhookEvent;
  jobId: string;
  status: DeliveryStatus;
  /** Oldest first. */
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

export interface DeliveryListRequest extends WebhookRef {
  limit: number;
  /** Opaque, from the previous page's `nextCursor`. */
  cursor?: string;
}
export interface DeliveryListReply {
  deliveries: Delivery[];
  nextCursor: string | null;
  /** The webhook's circuit breaker now: while open, its pending deliveries wait for the probe. */
  breaker: WebhookBreaker;
}

export interface RedeliverRequest extends WebhookRef {
  deliveryId: string;
}
