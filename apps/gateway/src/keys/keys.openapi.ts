import { KEY_MODES, KEY_SCOPES, RESPONSE_STYLES } from '@emailverify/contracts';
import { type RouteDocs, sameInBothStyles } from '../openapi/api-route';
import { nullable, object, str, time } from '../openapi/schema';

// The key endpoints have no older variant: the legacy style is the current `data` payload unwrapped, so each
// reply documents one schema and one example for both styles.

const keyProperties = {
  id: str,
  name: str,
  prefix: { type: 'string', description: 'The first characters of the key, to tell keys apart' },
  mode: {
    type: 'string',
    enum: [...KEY_MODES],
    description: '`sandbox` keys (`ev_test_...`) get canned answers and are never charged; fixed at creation',
  },
  scope: {
    type: 'string',
    enum: [...KEY_SCOPES],
    description: '`verify`: verification endpoints and credits only (no keys or webhooks management)',
  },
  style: { type: 'string', enum: [...RESPONSE_STYLES], description: 'The default response style' },
  status: { type: 'string', enum: ['active', 'expired', 'revoked'] },
  created_at: time,
  expires_at: nullable(time, 'When the key stops working; null: never'),
  revoked_at: nullable(time, 'When the key was revoked; null: it was not'),
};

const keySchema = object(keyProperties);

const withSecretSchema = object({
  ...keyProperties,
  api_key: {
    type: 'string',
    description: 'The key itself (`ev_` or `ev_test_` + 43 characters). Returned only here: store it now.',
  },
});

const keyExample = {
  id: '0b8f3a52-93a4-4f0e-8d63-0e5f1d2c7a11',
  name: 'staging server',
  prefix: 'ev_test_Qm3x9Lp',
  mode: 'sandbox',
  scope: 'verify',
  style: 'current',
  status: 'active',
  created_at: '2026-11-22T10:00:00.000Z',
  expires_at: '2027-06-30T00:00:00.000Z',
  revoked_at: null,
};

const listDocs = {
  ...sameInBothStyles(
    object({
      keys: { type: 'array', description: 'Oldest first; never the keys themselves', items: keySchema },
      total: { type: 'integer' },
    }),
    {
      keys: [
        {
          ...keyExample,
          id: '6a1c2b1e-6a1d-4c57-9a43-2d1f1f3b9a10',
          name: 'default',
          prefix: 'ev_Hq81ZcT',
          mode: 'live',
          scope: 'full',
          expires_at: null,
        },
        keyExample,
      ],
      total: 2,
    },
  ),
  name: 'ApiKeyList',
};

const createdDocs = {
  ...sameInBothStyles(withSecretSchema, {
    ...keyExample,
    api_key: 'ev_test_Qm3x9LpV1d8sKq2wYc7nRb5tHf0gJe4uXa6zMo3iNl2',
  }),
  name: 'ApiKeyWithSecret',
};

const revokedDocs = {
  ...sameInBothStyles(keySchema, {
    ...keyExample,
    status: 'revoked',
    revoked_at: '2026-11-23T08:30:00.000Z',
  }),
  name: 'ApiKey',
};

/** What the document says about each key route. */
export const KeyRoutes = {
  list: {
    operationId: 'listKeys',
    summary: "The account's API keys (extension)",
    description:
      'Without the keys themselves. A sandbox key sees the sandbox keys only. Refused (403 INSUFFICIENT_SCOPE) to a key of the `verify` scope.',
    ok: listDocs,
    errors: ['INSUFFICIENT_SCOPE', 'SERVICE_UNAVAILABLE'],
  },
  create: {
    operationId: 'createKey',
    summary: 'Create an API key (extension)',
    description:
      'The reply is the only one that carries the key (`api_key`). `sandbox: true` makes an `ev_test_` key; a sandbox key makes sandbox keys only (`sandbox: false` is 403 INSUFFICIENT_SCOPE). The new key answers in the default style of the key that made it. An account holds at most 100 active keys.',
    ok: createdDocs,
    errors: ['INSUFFICIENT_SCOPE', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
  },
  revoke: {
    operationId: 'revokeKey',
    params: {
      keyId: 'A key of the account (a sandbox key: a sandbox key); any other id is 404 API_KEY_NOT_FOUND',
    },
    summary: 'Revoke an API key at once (extension)',
    description:
      'Every gateway refuses the key (401 INVALID_API_KEY) by the time this answers. The key making the call cannot revoke itself (409). Revoking a revoked key answers it unchanged.',
    ok: revokedDocs,
    errors: ['INSUFFICIENT_SCOPE', 'API_KEY_NOT_FOUND', 'CANNOT_REVOKE_CURRENT_KEY', 'SERVICE_UNAVAILABLE'],
  },
} satisfies Record<string, RouteDocs>;
