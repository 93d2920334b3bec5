import { sqlMigration } from '@emailverify/persistence';

/**
 * Keys carry a mode (`sandbox` keys get canned answers and are never charged), a scope (`verify` keys may not
 * manage keys or webhooks) and an optional expiry. Existing keys stay live, full and without an expiry.
 */
export const CreditsKeyMode1764400000000 = sqlMigration('CreditsKeyMode1764400000000', {
  up: [
    `ALTER TABLE credits.api_keys
       ADD COLUMN mode text NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'sandbox')),
       ADD COLUMN scope text NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'verify')),
       ADD COLUMN expires_at timestamptz`,
  ],
  down: [`ALTER TABLE credits.api_keys DROP COLUMN mode, DROP COLUMN scope, DROP COLUMN expires_at`],
});
