import { type Account, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('platform: accounts, keys, credits, auth and response styles', () => {
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    suite = await TestSuite.start({ gateways: 2, env: { NATS_REQUEST_TIMEOUT_MS: '2000' } });
    account = await suite.createAccount({ credits: 1000 });
  });
  afterAll(async () => suite?.stop());

  it('answers GET /v1/credits in the current style with the envelope and every field', async () => {
    const res = await suite.call('/v1/credits', { key: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      code: '0',
      message: expect.any(String),
      data: {
        account_id: account.accountId,
        api_key_id: account.apiKeyId,
        api_key_name: 'default',
        credits_balance: 1000,
        credits_consumed: 0,
        credits_added: 1000,
        last_updated: expect.stringMatching(ISO),
        mode: 'live',
      },
    });
  });

  it('answers GET /v1/credits in the legacy style, unwrapped', async () => {
    const res = await suite.call('/v1/credits', { key: account.apiKey, style: 'legacy' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      available: 1000,
      used: 0,
      total: 1000,
      plan: 'payg',
      resets_at: expect.stringMatching(ISO),
      rate_limit: { requests_per_hour: 600 * 60, remaining: expect.any(Number) },
    });
    expect(res.json.rate_limit.remaining).toBeLessThan(600);
  });

  it("uses the key's default style when no header asks otherwise", async () => {
    const legacyKey = await suite.createAccount({ credits: 5, style: 'legacy' });
    const legacy = await suite.call('/v1/credits', { key: legacyKey.apiKey });
    expect(legacy.json).toMatchObject({ available: 5, total: 5 });
    expect(legacy.json.success).toBeUndefined();
    const current = await suite.call('/v1/credits', { key: legacyKey.apiKey, style: 'current' });
    expect(current.json).toMatchObject({ success: true, data: { credits_balance: 5 } });
  });

  it('refuses an unknown SVC-Response-Style value', async () => {
    const res = await suite.call('/v1/credits', {
      key: account.apiKey,
      headers: { 'SVC-Response-Style': 'fancy' },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('INVALID_REQUEST');
    expect(res.json.error.message).toContain('SVC-Response-Style');
  });

  it.each(['SVC-API-KEY', 'SERVICE-API-KEY', 'Authorization'] as const)(
    'accepts the key in %s alone',
    async (carrier) => {
      const res = await suite.call('/v1/credits', { key: account.apiKey, carrier });
      expect(res.status).toBe(200);
      expect(res.json.data.account_id).toBe(account.accountId);
    },
  );

  it('lets the first carrier present decide: a wrong SVC-API-KEY with a good Bearer is 401', async () => {
    const res = await suite.call('/v1/credits', {
      headers: { 'SVC-API-KEY': 'ev_wrong', Authorization: `Bearer ${account.apiKey}` },
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('INVALID_API_KEY');
  });

  it('answers a missing key with 401 INVALID_API_KEY in both styles', async () => {
    const current = await suite.call('/v1/credits');
    expect(current.status).toBe(401);
    expect(current.json).toEqual({
      success: false,
      code: '4010',
      message: expect.any(String),
      error: { code: 'INVALID_API_KEY', message: expect.any(String) },
    });
    const legacy = await suite.call('/v1/credits', { style: 'legacy' });
    expect(legacy.status).toBe(401);
    expect(legacy.json).toEqual({ error: { code: 'INVALID_API_KEY', message: expect.any(String) } });
  });

  it('refuses a revoked key at once on every gateway', async () => {
    const victim = await suite.createAccount({ credits: 1 });
    // Both gateways have the key cached.
    expect((await suite.call('/v1/credits', { key: victim.apiKey, gateway: 0 })).status).toBe(200);
    expect((await suite.call('/v1/credits', { key: victim.apiKey, gateway: 1 })).status).toBe(200);
    await suite.bus.request('credits.key.revoke', { apiKeyId: victim.apiKeyId });
    expect((await suite.call('/v1/credits', { key: victim.apiKey, gateway: 0 })).status).toBe(401);
    expect((await suite.call('/v1/credits', { key: victim.apiKey, gateway: 1 })).status).toBe(401);
  });

  it('sends the rate-limit headers on every authenticated reply, errors included', async () => {
    const ok = await suite.call('/v1/credits', { key: account.apiKey });
    const notFound = await suite.call('/v1/verify/file/00000000-0000-0000-0000-000000000000/nothing', {
      key: account.apiKey,
    });
    for (const res of [ok]) {
      expect(Number(res.headers.get('x-ratelimit-limit'))).toBe(600);
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
    }
    expect(notFound.status).toBe(404);
    expect(notFound.json.error.code).toBe('NOT_FOUND');
  });

  it('echoes X-Request-Id, or makes one', async () => {
    const given = await suite.call('/v1/credits', {
      key: account.apiKey,
      headers: { 'X-Request-Id': 'abc-123' },
    });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await suite.call('/v1/credits', { key: account.apiKey });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 503 with code 1000 in both styles when the credits service is down', async () => {
    const fresh = await suite.createAccount({ credits: 1 });
    await suite.stopService('credits');
    try {
      const current = await suite.call('/v1/credits', { key: fresh.apiKey });
      expect(current.status).toBe(503);
      expect(current.json).toMatchObject({
        success: false,
        code: '1000',
        error: { code: 'SERVICE_UNAVAILABLE' },
      });
      expect(current.json.error.message).toMatch(/credits service/);
      const legacy = await suite.call('/v1/credits', { key: account.apiKey, style: 'legacy' });
      expect(legacy.status).toBe(503);
      expect(legacy.json).toEqual({
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/credits service/) },
      });
      const ready = await fetch(`${suite.gatewayUrl()}/health/ready`);
      expect(ready.status).toBe(503);
    } finally {
      await suite.startService('credits');
    }
    expect((await suite.call('/v1/credits', { key: fresh.apiKey })).status).toBe(200);
  });
});
