import type { KeyCreateReply, KeyListReply, KeySummary } from '@emailverify/contracts';
import { inBothStyles } from '../common/http/presenter';

// The keys endpoints have no older variant: every presenter is the same in both styles.

type KeyFields = Pick<
  KeySummary,
  'apiKeyId' | 'prefix' | 'style' | 'mode' | 'scope' | 'createdAt' | 'expiresAt'
> & { name: string; revokedAt: string | null };

/** Whether the key works now: revoked and expired keys are refused (401). */
function statusOf(key: KeyFields): 'active' | 'expired' | 'revoked' {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now()) return 'expired';
  return 'active';
}

/** A key as listed: never its secret, only the prefix that tells it apart. */
function keyBody(key: KeyFields): Record<string, unknown> {
  return {
    id: key.apiKeyId,
    name: key.name,
    prefix: key.prefix,
    mode: key.mode,
    scope: key.scope,
    style: key.style,
    status: statusOf(key),
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
  };
}

/** GET /keys: the account's keys, oldest first. */
export const KeyListPresenter = inBothStyles<KeyListReply>(({ keys }) => ({
  keys: keys.map(keyBody),
  total: keys.length,
}));

/** POST /keys: the only reply that carries the key itself. */
export const KeyCreatedPresenter = inBothStyles<KeyCreateReply>((key) => ({
  ...keyBody({ ...key, name: key.apiKeyName, revokedAt: null }),
  api_key: key.apiKey,
}));

/** DELETE /keys/{id}: the key, revoked. */
export const KeyRevokedPresenter = inBothStyles<KeySummary>(keyBody);
