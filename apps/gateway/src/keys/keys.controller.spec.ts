import { DomainError, type KeyCreateRequest, type KeySummary, Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT, GatewayHarness, KEYS } from '../testing/gateway-harness';
import { expectError, expectFieldError, payloadOf, STYLES } from '../testing/replies';

// /v1/keys over HTTP, the credits service stood in for.

const KEY_ID = '0b8f3a52-93a4-4f0e-8d63-0e5f1d2c7a11';
/** Expiries must be in the future and within 10 years. */
const NEXT_YEAR = new Date().getUTCFullYear() + 1;

function summary(overrides: Partial<KeySummary> = {}): KeySummary {
  return {
    apiKeyId: KEY_ID,
    accountId: ACCOUNT,
    name: 'ci',
    prefix: 'ev_Hq81ZcT',
    style: 'current',
    mode: 'live',
    scope: 'full',
    createdAt: '2026-11-22T10:00:00.000Z',
    expiresAt: null,
    revokedAt: null,
    ...overrides,
  };
}

describe('/v1/keys', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start();
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => {
    gateway.reset();
    gateway.bus.answer(Subjects.creditsKeyList, () => ({
      keys: [summary(), summary({ apiKeyId: 'k2', mode: 'sandbox', revokedAt: '2026-11-23T00:00:00.000Z' })],
    }));
    gateway.bus.answer(Subjects.creditsKeyCreate, (req: KeyCreateRequest) => ({
      accountId: req.accountId,
      apiKeyId: KEY_ID,
      apiKeyName: req.name ?? 'key',
      apiKey: req.mode === 'sandbox' ? 'ev_test_secret' : 'ev_secret',
      style: req.style ?? 'current',
      mode: req.mode ?? 'live',
      scope: req.scope ?? 'full',
      prefix: 'ev_secret',
      createdAt: '2026-11-22T10:00:00.000Z',
      expiresAt: req.expiresAt ?? null,
    }));
    gateway.bus.answer(Subjects.creditsAccountKeyRevoke, ({ apiKeyId, callerApiKeyId }) => {
      if (apiKeyId === callerApiKeyId)
        throw new DomainError('CANNOT_REVOKE_CURRENT_KEY', 'A key cannot revoke itself');
      return summary({ apiKeyId, revokedAt: '2026-11-23T08:30:00.000Z' });
    });
  });

  it.each(STYLES)('lists the account keys without secrets, with their status (%s style)', async (style) => {
    const res = await gateway.call('/v1/keys', { key: KEYS[style] });
    expect(payloadOf(style, res)).toEqual({
      keys: [
        {
          id: KEY_ID,
          name: 'ci',
          prefix: 'ev_Hq81ZcT',
          mode: 'live',
          scope: 'full',
          style: 'current',
          status: 'active',
          created_at: '2026-11-22T10:00:00.000Z',
          expires_at: null,
          revoked_at: null,
        },
        expect.objectContaining({ id: 'k2', mode: 'sandbox', status: 'revoked' }),
      ],
      total: 2,
    });
    expect(gateway.bus.asked).toEqual([
      { subject: Subjects.creditsKeyList, payload: { accountId: ACCOUNT }, requestId: expect.any(String) },
    ]);
  });

  it('lets a sandbox key list and revoke sandbox keys only', async () => {
    const { key } = gateway.newKey('current', { mode: 'sandbox' });
    await gateway.call('/v1/keys', { key });
    await gateway.call(`/v1/keys/${KEY_ID}`, { key, method: 'DELETE' });
    expect(gateway.bus.asked.map((a) => a.payload)).toEqual([
      { accountId: ACCOUNT, mode: 'sandbox' },
      expect.objectContaining({ apiKeyId: KEY_ID, mode: 'sandbox' }),
    ]);
  });

  it.each(STYLES)(
    'creates a key, shown once, in the style of the key that made it (%s style)',
    async (style) => {
      const res = await gateway.call('/v1/keys', {
        key: KEYS[style],
        body: { name: 'staging', sandbox: true, scope: 'verify', expires_at: `${NEXT_YEAR}-01-31T12:00:00+01:00` },
      });
      expect(res.status, res.text).toBe(200);
      expect(payloadOf(style, res)).toMatchObject({
        id: KEY_ID,
        name: 'staging',
        mode: 'sandbox',
        scope: 'verify',
        style,
        status: 'active',
        expires_at: `${NEXT_YEAR}-01-31T11:00:00.000Z`,
        revoked_at: null,
        api_key: 'ev_test_secret',
      });
      expect(gateway.bus.asked[0]!.payload).toEqual({
        accountId: ACCOUNT,
        name: 'staging',
        style,
        mode: 'sandbox',
        scope: 'verify',
        expiresAt: `${NEXT_YEAR}-01-31T11:00:00.000Z`,
      });
    },
  );

  it('makes a live, full key by default', async () => {
    await gateway.call('/v1/keys', { body: { name: 'ci' } });
    expect(gateway.bus.asked[0]!.payload).toMatchObject({ mode: 'live', scope: 'full' });
    expect(gateway.bus.asked[0]!.payload).not.toHaveProperty('expiresAt');
  });

  it.each(STYLES)('lets a sandbox key make sandbox keys only (%s style)', async (style) => {
    const { key } = gateway.newKey(style, { mode: 'sandbox' });
    const made = await gateway.call('/v1/keys', { key, body: { name: 'more' } });
    expect(payloadOf(style, made)).toMatchObject({ mode: 'sandbox', api_key: 'ev_test_secret' });
    gateway.reset();
    const live = await gateway.call('/v1/keys', { key, body: { name: 'live', sandbox: false } });
    expectError(style, live, 403, 'INSUFFICIENT_SCOPE');
    expect(gateway.bus.asked).toEqual([]);
  });

  it.each(STYLES)('refuses a malformed key request naming its field (%s style)', async (style) => {
    const key = KEYS[style];
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'a\u0000b' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 7 }, 'name'],
      [{ name: 'ci', sandbox: 'yes' }, 'sandbox'],
      [{ name: 'ci', sandbox: null }, 'sandbox'],
      [{ name: 'ci', scope: 'admin' }, 'scope'],
      [{ name: 'ci', expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'ci', expires_at: `${NEXT_YEAR}-01-31` }, 'expires_at'],
      [{ name: 'ci', expires_at: `${NEXT_YEAR}-02-30T00:00:00Z` }, 'expires_at'],
      [{ name: 'ci', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'ci', expires_at: '2200-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'ci', mode: 'live' }, 'mode'],
    ];
    for (const [body, field] of cases) {
      const res = await gateway.call('/v1/keys', { key, body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expectFieldError(style, res, field);
    }
    expect(gateway.bus.asked).toEqual([]);
  });

  it.each(STYLES)('revokes another key of the account, naming the caller (%s style)', async (style) => {
    const res = await gateway.call(`/v1/keys/${KEY_ID}`, { key: KEYS[style], method: 'DELETE' });
    expect(payloadOf(style, res)).toMatchObject({ id: KEY_ID, status: 'revoked' });
    expect(gateway.bus.asked[0]!.payload).toEqual({
      accountId: ACCOUNT,
      apiKeyId: KEY_ID,
      callerApiKeyId: style === 'current' ? 'key-current' : 'key-legacy',
    });
  });

  it.each(STYLES)(
    'answers 409 when the key would revoke itself, 404 for an id that is no key (%s style)',
    async (style) => {
      const key = KEYS[style];
      // The harness's key ids are not UUIDs, so the credits service's refusal is stood in for.
      gateway.bus.answer(Subjects.creditsAccountKeyRevoke, () => {
        throw new DomainError('CANNOT_REVOKE_CURRENT_KEY', 'A key cannot revoke itself');
      });
      const self = await gateway.call(`/v1/keys/${KEY_ID}`, { key, method: 'DELETE' });
      expect(expectError(style, self, 409, 'CANNOT_REVOKE_CURRENT_KEY').message).toMatch(/itself/);
      gateway.reset();
      for (const id of ['not-a-key', 'key-current', `${KEY_ID}x`]) {
        const res = await gateway.call(`/v1/keys/${id}`, { key, method: 'DELETE' });
        expectError(style, res, 404, 'API_KEY_NOT_FOUND');
      }
      expect(gateway.bus.asked).toEqual([]);
    },
  );

  it.each(STYLES)(
    'refuses a key of the verify scope on /v1/keys and /v1/webhooks with 403 (%s style)',
    async (style) => {
      const { key } = gateway.newKey(style, { scope: 'verify' });
      for (const [path, method, body] of [
        ['/v1/keys', 'GET', undefined],
        ['/v1/keys', 'POST', { name: 'escalate' }],
        [`/v1/keys/${KEY_ID}`, 'DELETE', undefined],
        ['/v1/webhooks', 'GET', undefined],
        ['/v1/webhooks', 'POST', { url: 'https://hooks.example.com/x', events: ['file.completed'] }],
      ] as const) {
        const res = await gateway.call(path, { key, method, body });
        expect(expectError(style, res, 403, 'INSUFFICIENT_SCOPE').message, `${method} ${path}`).toMatch(
          /verify scope/,
        );
        expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
      }
      expect(gateway.bus.asked).toEqual([]);
    },
  );

  it('lets a key of the verify scope read its credits', async () => {
    const { key } = gateway.newKey('current', { scope: 'verify' });
    gateway.bus.answer(Subjects.creditsBalanceGet, ({ accountId, apiKeyId }) => ({
      accountId,
      apiKeyId,
      apiKeyName: 'v',
      plan: 'payg',
      balance: 1,
      consumed: 0,
      added: 1,
      updatedAt: '2026-11-22T10:00:00.000Z',
      mode: 'live',
    }));
    expect((await gateway.call('/v1/credits', { key })).status).toBe(200);
  });
});
