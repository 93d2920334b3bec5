import { DomainError, Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT, GatewayHarness, KEYS } from '../testing/gateway-harness';
import { expectError, expectFieldError, payloadOf, STYLES } from '../testing/replies';

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

describe('GET /v1/credits/ledger and /v1/credits/usage', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start();
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => {
    gateway.reset();
    gateway.bus.answer(Subjects.creditsLedgerList, () => ({
      entries: [
        {
          id: '12',
          kind: 'charge',
          amount: -3,
          balanceAfter: 7,
          createdAt: '2026-11-22T10:00:00.000Z',
          source: 'bulk',
          requestId: 'req-1',
          jobId: null,
        },
      ],
      nextCursor: 'opaque',
    }));
    gateway.bus.answer(Subjects.creditsUsageGet, ({ from, to }) => {
      const counts = { valid: 2, invalid: 1, unknown: 0, risky: 0, disposable: 0, catchall: 0, role: 0 };
      const zero = { valid: 0, invalid: 0, unknown: 0, risky: 0, disposable: 0, catchall: 0, role: 0 };
      const day = { creditsAdded: 10, creditsUsed: 3, verifications: counts, sandboxVerifications: zero };
      return { from, to, granularity: 'day', days: [{ date: to, ...day }], totals: day };
    });
  });

  it.each(STYLES)('pages the ledger with a request id per entry (%s style)', async (style) => {
    const res = await gateway.call('/v1/credits/ledger?limit=5&cursor=opaque&from=2026-11-01&to=2026-11-30', {
      key: KEYS[style],
    });
    expect(payloadOf(style, res)).toEqual({
      entries: [
        {
          id: '12',
          type: 'charge',
          amount: -3,
          balance_after: 7,
          created_at: '2026-11-22T10:00:00.000Z',
          source: 'bulk',
          request_id: 'req-1',
          job_id: null,
        },
      ],
      next_cursor: 'opaque',
    });
    expect(gateway.bus.asked[0]!.payload).toEqual({
      accountId: ACCOUNT,
      limit: 5,
      cursor: 'opaque',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
    });
  });

  it('asks for 20 entries by default and passes date-times as instants', async () => {
    await gateway.call('/v1/credits/ledger?from=2026-11-01T10:00:00%2B02:00');
    expect(gateway.bus.asked[0]!.payload).toEqual({
      accountId: ACCOUNT,
      limit: 20,
      from: '2026-11-01T08:00:00.000Z',
    });
  });

  it.each(STYLES)('refuses a malformed ledger query naming its field (%s style)', async (style) => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['from=yesterday', 'from'],
      ['from=2026-02-30', 'from'],
      ['to=2026-11-28T25:00:00Z', 'to'],
      ['from=0000-01-01', 'from'],
      ['from=2026-11-02&to=2026-11-01', 'from'],
      ['from=2024-01-01&to=2026-01-01', 'to'],
      ['from=2026-11-01&from=2026-11-02', 'from'],
      ['to=2026-11-30T00:00:00.000000000000000000000Z', 'to'],
      ['page=2', 'page'],
    ]) {
      const res = await gateway.call(`/v1/credits/ledger?${query}`, { key: KEYS[style] });
      expect(res.status, query).toBe(400);
      expectFieldError(style, res, field!);
    }
    expect(gateway.bus.asked).toEqual([]);
  });

  it.each(STYLES)('answers usage per day with totals, sandbox apart (%s style)', async (style) => {
    const res = await gateway.call('/v1/credits/usage?from=2026-11-01&to=2026-11-30&granularity=day', {
      key: KEYS[style],
    });
    const counts = {
      credits_added: 10,
      credits_used: 3,
      verifications: {
        total: 3,
        valid: 2,
        invalid: 1,
        unknown: 0,
        risky: 0,
        disposable: 0,
        catchall: 0,
        role: 0,
      },
      sandbox_verifications: {
        total: 0,
        valid: 0,
        invalid: 0,
        unknown: 0,
        risky: 0,
        disposable: 0,
        catchall: 0,
        role: 0,
      },
    };
    expect(payloadOf(style, res)).toEqual({
      from: '2026-11-01',
      to: '2026-11-30',
      granularity: 'day',
      days: [{ date: '2026-11-30', ...counts }],
      totals: counts,
    });
    expect(gateway.bus.asked[0]!.payload).toEqual({
      accountId: ACCOUNT,
      from: '2026-11-01',
      to: '2026-11-30',
    });
  });

  it('covers the last 30 days up to today by default, or ending at `to`', async () => {
    await gateway.call('/v1/credits/usage');
    const today = new Date().toISOString().slice(0, 10);
    const { from, to } = gateway.bus.asked[0]!.payload as { from: string; to: string };
    expect(to).toBe(today);
    expect((Date.parse(to) - Date.parse(from)) / 86_400_000).toBe(29);
    gateway.reset();
    await gateway.call('/v1/credits/usage?to=2026-03-01');
    expect(gateway.bus.asked[0]!.payload).toMatchObject({ from: '2026-01-31', to: '2026-03-01' });
  });

  it.each(STYLES)('refuses a malformed usage query naming its field (%s style)', async (style) => {
    for (const [query, field] of [
      ['granularity=week', 'granularity'],
      ['from=2026-11-01T00:00:00Z', 'from'],
      ['from=2026-13-01', 'from'],
      ['to=2026-11-31', 'to'],
      ['from=2026-11-02&to=2026-11-01', 'from'],
      ['from=2025-01-01&to=2026-01-02', 'to'],
    ]) {
      const res = await gateway.call(`/v1/credits/usage?${query}`, { key: KEYS[style] });
      expect(res.status, query).toBe(400);
      expectFieldError(style, res, field!);
    }
    expect(gateway.bus.asked).toEqual([]);
  });
});
