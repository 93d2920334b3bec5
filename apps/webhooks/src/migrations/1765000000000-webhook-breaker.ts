import { sqlMigration } from '@emailverify/persistence';

/**
 * Per-webhook isolation: the circuit breaker's state on each webhook (consecutive failed attempts; while open,
 * when it opened, its current pause and when the next probe goes), and an index that finds a webhook's due
 * deliveries and those in flight, which the claim counts against the per-webhook cap.
 */
export const WebhookBreaker1765000000000 = sqlMigration('WebhookBreaker1765000000000', {
  up: [
    `ALTER TABLE webhooks.webhooks
       ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0,
       ADD COLUMN breaker_opened_at timestamptz,
       ADD COLUMN breaker_pause_ms integer,
       ADD COLUMN breaker_retry_at timestamptz`,
    `CREATE INDEX deliveries_webhook_due_idx ON webhooks.deliveries (webhook_id, next_attempt_at)
       WHERE status = 'pending'`,
  ],
  down: [
    `DROP INDEX webhooks.deliveries_webhook_due_idx`,
    `ALTER TABLE webhooks.webhooks DROP COLUMN consecutive_failures, DROP COLUMN breaker_opened_at,
       DROP COLUMN breaker_pause_ms, DROP COLUMN breaker_retry_at`,
  ],
});
