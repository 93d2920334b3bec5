import type { ResponseStyle } from '@emailverify/contracts';
import { type Account, eventually, type HttpReply, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const STYLES: ResponseStyle[] = ['current', 'legacy'];

/** The payload of a successful reply: the envelope's `data` (current) or the unwrapped body (legacy). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary reply shapes
function payloadOf(style: ResponseStyle, res: HttpReply): any {
  expect(res.status, res.text).toBe(200);
  if (style === 'legacy') return res.json;
  expect(res.json).toMatchObject({ success: true, code: '0' });
  return res.json.data;
}

function expectRefused(style: ResponseStyle, res: HttpReply, status: number, code: string, numeric: string) {
  expect(res.status, res.text).toBe(status);
  if (style === 'current')
    expect(res.json).toMatchObject({
      success: false,
      code: numeric,
      error: { code, message: expect.any(String) },
    });
  else expect(res.json).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

/**
 * API keys managed by their account over HTTP (/v1/keys), with two gateways that each cache resolved keys: a
 * revocation or an expiry is refused on both at once, whatever they cached.
 */
describe('API keys, self-service, across two gateways', () => {
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    suite = await TestSuite.start({ services: ['credits'], gateways: 2 });
    account = await suite.createAccount({ credits: 10 });
  });
  afterAll(async () => suite?.stop());

  /** A key made over HTTP by the account's default key. */
  async function createKey(body: Record<string, unknown>, key = account.apiKey) {
    const res = await suite.call('/v1/keys', { key, body });
    return payloadOf('current', res) as { id: string; api_key: string; [field: string]: unknown };
  }

  const works = async (key: string, gateway: number) =>
    (await suite.call('/v1/credits', { key, gateway })).status;

  it.each(STYLES)(
    'creates a key shown once, lists it without its secret, in both styles (%s)',
    async (style) => {
      const created = payloadOf(
        style,
        await suite.call('/v1/keys', { key: account.apiKey, style, body: { name: `ci-${style}` } }),
      );
      expect(created).toMatchObject({
        name: `ci-${style}`,
        mode: 'live',
        scope: 'full',
        status: 'active',
        expires_at: null,
        revoked_at: null,
        api_key: expect.stringMatching(/^ev_(?!test_)[A-Za-z0-9_-]{43}$/),
      });
      expect(await works(created.api_key, 1)).toBe(200);

      const listed = await suite.call('/v1/keys', { key: account.apiKey, style });
      const { keys, total } = payloadOf(style, listed);
      expect(total).toBe(keys.length);
      expect(keys).toContainEqual(
        expect.objectContaining({ id: created.id, prefix: created.api_key.slice(0, 10) }),
      );
      expect(listed.text).not.toContain(created.api_key);
      expect(listed.text).not.toContain(account.apiKey);
    },
  );

  it('revokes a key on every gateway at once, though both had it cached', async () => {
    const made = await createKey({ name: 'to revoke' });
    expect([await works(made.api_key, 0), await works(made.api_key, 1)]).toEqual([200, 200]);

    const res = await suite.call(`/v1/keys/${made.id}`, {
      key: account.apiKey,
      method: 'DELETE',
      gateway: 1,
    });
    expect(payloadOf('current', res)).toMatchObject({
      id: made.id,
      status: 'revoked',
      revoked_at: expect.any(String),
    });
    for (const gateway of [0, 1])
      for (const style of STYLES) {
        const refused = await suite.call('/v1/credits', { key: made.api_key, gateway, style });
        expectRefused(style, refused, 401, 'INVALID_API_KEY', '4010');
      }
    // Revoking it again answers it as it is.
    const again = await suite.call(`/v1/keys/${made.id}`, { key: account.apiKey, method: 'DELETE' });
    expect(payloadOf('current', again).revoked_at).toBe(res.json.data.revoked_at);
  });

  it.each(STYLES)(
    'never lets a key revoke itself, nor a key of another account (%s style)',
    async (style) => {
      const self = await suite.call(`/v1/keys/${account.apiKeyId}`, {
        key: account.apiKey,
        method: 'DELETE',
        style,
      });
      expectRefused(style, self, 409, 'CANNOT_REVOKE_CURRENT_KEY', '4090');
      expect(await works(account.apiKey, 1)).toBe(200);

      const other = await suite.createAccount({ credits: 1 });
      const foreign = await suite.call(`/v1/keys/${other.apiKeyId}`, {
        key: account.apiKey,
        method: 'DELETE',
        style,
      });
      expectRefused(style, foreign, 404, 'API_KEY_NOT_FOUND', '4040');
      expect(await works(other.apiKey, 0)).toBe(200);
    },
  );

  it('stops accepting a key at its expiry on both gateways, though both had it cached', async () => {
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const made = await createKey({ name: 'short-lived', expires_at: expiresAt });
    expect(made.expires_at).toBe(expiresAt);
    expect([await works(made.api_key, 0), await works(made.api_key, 1)]).toEqual([200, 200]);
    await eventually(async () => expect(await works(made.api_key, 0)).toBe(401), { timeoutMs: 20_000 });
    expect(await works(made.api_key, 1)).toBe(401);
    const { keys } = payloadOf('current', await suite.call('/v1/keys', { key: account.apiKey }));
    expect(keys.find((k: { id: string }) => k.id === made.id)).toMatchObject({ status: 'expired' });
  });

  it.each(STYLES)(
    'refuses a key of the verify scope on /v1/keys and /v1/webhooks with 403 (%s style)',
    async (style) => {
      const verifyOnly = await createKey({ name: 'verifier', scope: 'verify' });
      expect(verifyOnly.scope).toBe('verify');
      for (const [path, method, body] of [
        ['/v1/keys', 'GET', undefined],
        ['/v1/keys', 'POST', { name: 'escalate' }],
        [`/v1/keys/${account.apiKeyId}`, 'DELETE', undefined],
        ['/v1/webhooks', 'GET', undefined],
        ['/v1/webhooks', 'POST', { url: 'https://hooks.example.com/x', events: ['file.completed'] }],
      ] as const) {
        const res = await suite.call(path, { key: verifyOnly.api_key, method, body, style, gateway: 1 });
        expectRefused(style, res, 403, 'INSUFFICIENT_SCOPE', '4030');
      }
      // It still reads its credits, and the account's keys are as they were.
      expect(await works(verifyOnly.api_key, 0)).toBe(200);
      expect(await works(account.apiKey, 0)).toBe(200);
    },
  );

  it('makes sandbox keys that make sandbox keys only, and see only those', async () => {
    const sandbox = await createKey({ name: 'tests', sandbox: true });
    expect(sandbox).toMatchObject({ mode: 'sandbox', api_key: expect.stringMatching(/^ev_test_/) });
    const credits = await suite.call('/v1/credits', { key: sandbox.api_key });
    expect(credits.json.data).toMatchObject({ mode: 'sandbox', credits_balance: 10 });

    const child = await createKey({ name: 'child' }, sandbox.api_key);
    expect(child.mode).toBe('sandbox');
    for (const style of STYLES) {
      const live = await suite.call('/v1/keys', {
        key: sandbox.api_key,
        style,
        body: { name: 'live', sandbox: false },
      });
      expectRefused(style, live, 403, 'INSUFFICIENT_SCOPE', '4030');
    }
    const { keys } = payloadOf('current', await suite.call('/v1/keys', { key: sandbox.api_key }));
    expect(keys.map((k: { mode: string }) => k.mode)).toEqual(['sandbox', 'sandbox']);
    const live = await suite.call(`/v1/keys/${account.apiKeyId}`, { key: sandbox.api_key, method: 'DELETE' });
    expectRefused('current', live, 404, 'API_KEY_NOT_FOUND', '4040');
    expect(await works(account.apiKey, 1)).toBe(200);
  });

  it.each(STYLES)('refuses malformed key requests naming the field (%s style)', async (style) => {
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: 'x', scope: 'root' }, 'scope'],
      [{ name: 'x', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'x', sandbox: 'true' }, 'sandbox'],
      [{ name: 'x', account_id: account.accountId }, 'account_id'],
    ] as const) {
      const res = await suite.call('/v1/keys', { key: account.apiKey, body, style });
      expectRefused(style, res, 400, 'INVALID_REQUEST', '4000');
      expect(style === 'current' ? res.json.error.message : res.json.error.details.field).toContain(field);
    }
  });
});
