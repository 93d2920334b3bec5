import { sqlMigration } from '@emailverify/persistence';

/**
 * Secret rotation and key rotation: the id of the encryption key that sealed a webhook's secrets (rows from
 * before key ids are `default`, WEBHOOK_SECRET_KEY's id), and the rotated-out secret that keeps signing until
 * `previous_secret_until`.
 */
export const WebhookSecretRotation1764900000000 = sqlMigration('WebhookSecretRotation1764900000000', {
  up: [
    `ALTER TABLE webhooks.webhooks
       ADD COLUMN secret_key_id text NOT NULL DEFAULT 'default',
       ADD COLUMN previous_secret_sealed bytea,
       ADD COLUMN previous_secret_until timestamptz,
       ADD COLUMN secret_rotated_at timestamptz`,
    `ALTER TABLE webhooks.webhooks ALTER COLUMN secret_key_id DROP DEFAULT`,
    // The background re-encryption looks for rows sealed by a key other than the ring's first.
    `CREATE INDEX webhooks_secret_key_idx ON webhooks.webhooks (secret_key_id)`,
  ],
  down: [
    `DROP INDEX webhooks.webhooks_secret_key_idx`,
    `ALTER TABLE webhooks.webhooks DROP COLUMN secret_key_id, DROP COLUMN previous_secret_sealed,
       DROP COLUMN previous_secret_until, DROP COLUMN secret_rotated_at`,
  ],
});
