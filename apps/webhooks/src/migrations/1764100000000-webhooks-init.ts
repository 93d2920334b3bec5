import { sqlMigration } from '@emailverify/persistence';

/**
 * Webhooks (secrets encrypted), one delivery per event and webhook (the unique key makes a redelivered event
 * add nothing), and the attempts of each delivery for the delivery log.
 */
export const WebhooksInit1764100000000 = sqlMigration('WebhooksInit1764100000000', {
  up: [
    `
      CREATE TABLE webhooks.webhooks (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL CHECK (cardinality(events) > 0),
        secret_sealed bytea NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_delivery_status text CHECK (last_delivery_status IN ('success', 'failed')),
        last_delivery_at timestamptz,
        last_error text,
        -- First final failure since the last success: the auto-disable rule counts from it.
        failing_since timestamptz
      )`,
    `CREATE INDEX webhooks_account_idx ON webhooks.webhooks (account_id, created_at)`,
    `
      CREATE TABLE webhooks.deliveries (
        id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL REFERENCES webhooks.webhooks(id) ON DELETE CASCADE,
        account_id uuid NOT NULL,
        event_id text NOT NULL,
        event text NOT NULL,
        job_id uuid NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'success', 'failed')),
        attempt_count integer NOT NULL DEFAULT 0,
        -- NULL: as many attempts as the retry schedule has; a redelivery allows exactly one more.
        max_attempts integer,
        next_attempt_at timestamptz,
        -- While an attempt is in flight: until when its process holds it (a crashed process's claim expires).
        claimed_until timestamptz,
        request_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, webhook_id)
      )`,
    `CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at) WHERE status = 'pending'`,
    `CREATE INDEX deliveries_log_idx ON webhooks.deliveries (webhook_id, created_at DESC, id DESC)`,
    `CREATE INDEX deliveries_created_idx ON webhooks.deliveries USING brin (created_at)`,
    `
      CREATE TABLE webhooks.attempts (
        delivery_id uuid NOT NULL REFERENCES webhooks.deliveries(id) ON DELETE CASCADE,
        n integer NOT NULL,
        at timestamptz NOT NULL,
        http_status integer,
        duration_ms integer NOT NULL,
        error text,
        response_body text,
        PRIMARY KEY (delivery_id, n)
      )`,
  ],
  down: [`DROP TABLE webhooks.attempts`, `DROP TABLE webhooks.deliveries`, `DROP TABLE webhooks.webhooks`],
});
