import type {
  Delivery,
  DeliveryListReply,
  Webhook,
  WebhookBreaker,
  WebhookCreateReply,
  WebhookDeleteReply,
  WebhookListReply,
} from '@emailverify/contracts';
import { inBothStyles } from '../common/http/presenter';

// The webhook endpoints have no older variant: every presenter is the same in both styles.

/** A webhook; the secret is added by the create and rotate replies alone. */
function webhookBody(webhook: Webhook, secret?: string): Record<string, unknown> {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    ...(secret !== undefined ? { secret } : {}),
    is_active: webhook.isActive,
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
    last_delivery_status: webhook.lastDeliveryStatus,
    last_delivery_at: webhook.lastDeliveryAt,
    last_error: webhook.lastError,
    secret_rotated_at: webhook.secretRotatedAt,
    previous_secret_expires_at: webhook.previousSecretExpiresAt,
    breaker: breakerBody(webhook.breaker),
  };
}

function breakerBody(breaker: WebhookBreaker): Record<string, unknown> {
  return {
    state: breaker.state,
    retry_at: breaker.retryAt,
    consecutive_failures: breaker.consecutiveFailures,
  };
}

function deliveryBody(delivery: Delivery): Record<string, unknown> {
  return {
    id: delivery.id,
    event: delivery.event,
    job_id: delivery.jobId,
    status: delivery.status,
    attempts: delivery.attempts.map((attempt) => ({
      at: attempt.at,
      http_status: attempt.httpStatus,
      duration_ms: attempt.durationMs,
      error: attempt.error,
      response_body: attempt.responseBody,
    })),
    next_attempt_at: delivery.nextAttemptAt,
    created_at: delivery.createdAt,
  };
}

/** POST /webhooks: the only reply that carries the signing secret. */
export const WebhookCreatedPresenter = inBothStyles<WebhookCreateReply>(({ webhook, secret }) =>
  webhookBody(webhook, secret),
);

/** POST /webhooks/{id}/rotate-secret: the new secret, shown this once. */
export const WebhookRotatedPresenter = WebhookCreatedPresenter;

/** PATCH /webhooks/{id}. */
export const WebhookPresenter = inBothStyles<Webhook>((webhook) => webhookBody(webhook));

/** GET /webhooks. */
export const WebhookListPresenter = inBothStyles<WebhookListReply>(({ webhooks, total }) => ({
  webhooks: webhooks.map((webhook) => webhookBody(webhook)),
  total,
}));

/** DELETE /webhooks/{id}. */
export const WebhookDeletedPresenter = inBothStyles<WebhookDeleteReply>(({ webhookId }) => ({
  message: 'Webhook deleted',
  webhook_id: webhookId,
}));

/**
 * GET /webhooks/{id}/deliveries: newest first, with the cursor of the next page (null on the last) and the
 * webhook's circuit breaker.
 */
export const DeliveryListPresenter = inBothStyles<DeliveryListReply>(
  ({ deliveries, nextCursor, breaker }) => ({
    deliveries: deliveries.map(deliveryBody),
    next_cursor: nextCursor,
    breaker: breakerBody(breaker),
  }),
);

/** POST /webhooks/{id}/deliveries/{delivery_id}/redeliver. */
export const DeliveryPresenter = inBothStyles<Delivery>(deliveryBody);
