import { sqlMigration } from '@emailverify/persistence';

/**
 * Daily usage: verifications counted per account, UTC day, key mode and status (credits.usage.record), and the
 * keys of the records already counted, so a retried record counts once (kept a day, then pruned). The ledger
 * gets an index by time for the usage's daily credits and the ledger's date filters.
 */
export const CreditsUsage1764400000001 = sqlMigration('CreditsUsage1764400000001', {
  up: [
    `
      CREATE TABLE credits.usage_daily (
        account_id uuid NOT NULL REFERENCES credits.accounts(id),
        day date NOT NULL,
        mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
        status text NOT NULL
          CHECK (status IN ('valid', 'invalid', 'unknown', 'risky', 'disposable', 'catchall', 'role')),
        count bigint NOT NULL CHECK (count >= 0),
        PRIMARY KEY (account_id, day, mode, status)
      )`,
    `
      CREATE TABLE credits.usage_keys (
        key text PRIMARY KEY,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`,
    `CREATE INDEX usage_keys_recorded_idx ON credits.usage_keys (recorded_at)`,
    `CREATE INDEX ledger_account_time_idx ON credits.ledger (account_id, created_at)`,
  ],
  down: [`DROP INDEX credits.ledger_account_time_idx`, `DROP TABLE credits.usage_keys, credits.usage_daily`],
});
