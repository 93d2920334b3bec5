import { DomainError, Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT, GatewayHarness, KEYS } from '../testing/gateway-harness';
import { expectError, payloadOf, STYLES } from '../testing/replies';

// GET /v1/credits over HTTP, the credits service stood in for.

const RATE_LIMIT_OTHER = 600;

describe('GET /v1/credits', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start({ env: { RATE_LIMIT_OTHER: String(RATE_LIMIT_OTHER) } });
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => {
    gateway.reset();
    gateway.bus.answer(Subjects.creditsBalanceGet, ({ accountId, apiKeyId }) => ({
      accountId,
      apiKeyId,
      apiKeyName: 'default',
      plan: 'payg',
      balance: 950,
      consumed: 50,
      added: 1000,
      updatedAt: '2026-11-22T10:00:00.000Z',
      mode: 'live',
    }));
  });

  it("asks the credits service for the caller's account and key, with the request id", async () => {
    const res = await gateway.call('/v1/credits', { headers: { 'X-Request-Id': 'req-42' } });
    expect(res.status).toBe(200);
    expect(gateway.bus.asked).toEqual([
      {
        subject: Subjects.creditsBalanceGet,
        payload: { accountId: ACCOUNT, apiKeyId: 'key-current' },
        requestId: 'req-42',
      },
    ]);
  });

  it('answers the current style in the envelope with every field', async () => {
    const res = await gateway.call('/v1/credits');
    expect(payloadOf('current', res)).toEqual({
      account_id: ACCOUNT,
      api_key_id: 'key-current',
      api_key_name: 'default',
      credits_balance: 950,
      credits_consumed: 50,
      credits_added: 1000,
      last_updated: '2026-11-22T10:00:00.000Z',
      mode: 'live',
    });
  });

  it("answers the legacy style unwrapped, with the caller's rate-limit window", async () => {
    const { key } = gateway.newKey('legacy');
    await gateway.call('/v1/credits', { key });
    const res = await gateway.call('/v1/credits', { key });
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(payloadOf('legacy', res)).toEqual({
      available: 950,
      used: 50,
      total: 1000,
      plan: 'payg',
      resets_at: new Date(reset * 1000).toISOString(),
      rate_limit: { requests_per_hour: RATE_LIMIT_OTHER * 60, remaining: RATE_LIMIT_OTHER - 2 },
    });
  });

  it.each(STYLES)('answers 503 code 1000 when the credits service is down (%s style)', async (style) => {
    gateway.bus.answer(Subjects.creditsBalanceGet, () => {
      throw new DomainError('SERVICE_UNAVAILABLE', 'The credits service is not available; try again shortly');
    });
    const res = await gateway.call('/v1/credits', { key: KEYS[style] });
    expect(expectError(style, res, 503, 'SERVICE_UNAVAILABLE').message).toMatch(/credits service/);
  });
});
