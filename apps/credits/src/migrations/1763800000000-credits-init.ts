import { sqlMigration } from '@emailverify/persistence';

/** Accounts, API keys (hashes only), reservations with idempotency keys and an optional expiry, and the ledger. */
export const CreditsInit1763800000000 = sqlMigration('CreditsInit1763800000000', {
  up: [
    `
      CREATE TABLE credits.accounts (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL DEFAULT 'payg',
        balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
        consumed bigint NOT NULL DEFAULT 0 CHECK (consumed >= 0),
        added bigint NOT NULL DEFAULT 0 CHECK (added >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
    `
      CREATE TABLE credits.api_keys (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES credits.accounts(id),
        name text NOT NULL,
        prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        style text NOT NULL DEFAULT 'current' CHECK (style IN ('current', 'legacy')),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`,
    `CREATE INDEX api_keys_account_idx ON credits.api_keys (account_id)`,
    `
      CREATE TABLE credits.reservations (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES credits.accounts(id),
        idempotency_key text NOT NULL,
        amount bigint NOT NULL CHECK (amount >= 0),
        used bigint CHECK (used >= 0 AND used <= amount),
        refunded bigint CHECK (refunded >= 0),
        status text NOT NULL DEFAULT 'reserved' CHECK (status IN ('reserved', 'settled', 'expired')),
        created_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz,
        expires_at timestamptz,
        UNIQUE (account_id, idempotency_key)
      )`,
    // A reservation whose holder died before settling is refunded whole by the sweep and marked `expired`.
    `CREATE INDEX reservations_expiring_idx ON credits.reservations (expires_at)
        WHERE status = 'reserved' AND expires_at IS NOT NULL`,
    `
      CREATE TABLE credits.ledger (
        id bigserial PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES credits.accounts(id),
        kind text NOT NULL CHECK (kind IN ('grant', 'reserve', 'refund')),
        amount bigint NOT NULL,
        reservation_id uuid REFERENCES credits.reservations(id),
        balance_after bigint NOT NULL CHECK (balance_after >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    `CREATE INDEX ledger_account_idx ON credits.ledger (account_id, id)`,
  ],
  down: [`DROP TABLE credits.ledger, credits.reservations, credits.api_keys, credits.accounts`],
});
