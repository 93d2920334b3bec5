import { type HttpReply, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Sends `count` requests, `concurrency` at a time, and returns the replies in order. */
async function burst(
  count: number,
  concurrency: number,
  send: (i: number) => Promise<HttpReply>,
): Promise<HttpReply[]> {
  const replies: HttpReply[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        replies[i] = await send(i);
      }
    }),
  );
  return replies;
}

// Keys and credits are all these tests touch: the gateways and the credits service. One installation for the
// file; each describe below has gateways of its own, as its limits and store differ (a gateway keeps its rate
// limits in Redis when REDIS_URL is set, else in its own memory).
let suite: TestSuite;
beforeAll(async () => {
  suite = await TestSuite.start({ services: ['credits'], gateways: 2, redis: true });
});
afterAll(async () => suite?.stop());

describe('rate limits per API key and class (two gateways sharing Redis)', () => {
  it('answers request 601 of the "other" class within a minute with 429, in both styles', async () => {
    const { apiKey } = await suite.createAccount();
    const replies = await burst(600, 8, () => suite.call('/v1/credits', { key: apiKey }));
    expect(replies.map((r) => r.status)).toEqual(new Array(600).fill(200));
    const remaining = replies
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')))
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 600 }, (_, i) => i));
    for (const r of replies) expect(r.headers.get('x-ratelimit-limit')).toBe('600');

    const current = await suite.call('/v1/credits', { key: apiKey });
    expect(current.status).toBe(429);
    expect(current.json).toEqual({
      success: false,
      code: '4290',
      message: expect.any(String),
      error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) },
    });
    expect(Number(current.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(current.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(current.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(
      Math.floor(Date.now() / 1000),
    );

    const legacy = await suite.call('/v1/credits', { key: apiKey, style: 'legacy' });
    expect(legacy.status).toBe(429);
    expect(legacy.json).toEqual({
      error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String), retry_after: expect.any(Number) },
    });
    expect(legacy.json.error.retry_after).toBe(Number(legacy.headers.get('retry-after')));
  });

  it('holds the limit across both gateways', async () => {
    const { apiKey } = await suite.createAccount();
    const replies = await burst(600, 8, (i) => suite.call('/v1/credits', { key: apiKey, gateway: i % 2 }));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(600);
    expect((await suite.call('/v1/credits', { key: apiKey, gateway: 0 })).status).toBe(429);
    expect((await suite.call('/v1/credits', { key: apiKey, gateway: 1 })).status).toBe(429);
  });

  it('counts each key separately', async () => {
    const other = await suite.createAccount();
    expect((await suite.call('/v1/credits', { key: other.apiKey })).status).toBe(200);
  });

  // Last: it locks the loopback address out for the rest of the minute.
  it('refuses an address that keeps failing, on both gateways, even with a key they already know', async () => {
    const { apiKey } = await suite.createAccount();
    for (const gateway of [0, 1])
      expect((await suite.call('/v1/credits', { key: apiKey, gateway })).status).toBe(200);
    // The default limit of failed attempts (60 a minute), spread over both gateways, then one more.
    const failures = await burst(61, 8, (i) =>
      suite.call('/v1/credits', { key: `ev_guess_${i}`, gateway: i % 2 }),
    );
    const statuses = failures.map((r) => r.status).sort();
    expect(statuses).toEqual([...new Array(60).fill(401), 429]);
    for (const gateway of [0, 1]) {
      const known = await suite.call('/v1/credits', { key: apiKey, gateway, style: 'legacy' });
      expect(known.status).toBe(429);
      expect(known.json.error).toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
        retry_after: expect.any(Number),
      });
      expect(known.json.error.message).toMatch(/failed authentication/);
      expect(Number(known.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});

describe('failed authentication is limited per client address', () => {
  let gateway: number;

  beforeAll(async () => {
    // A gateway of its own, with its limits in its own memory: the address locked out above is not, here.
    gateway = await suite.startGateway({ RATE_LIMIT_AUTH_FAILURES: '5', REDIS_URL: '' });
  });

  it('refuses an address that keeps failing, whatever key it tries next', async () => {
    const { apiKey } = await suite.createAccount();
    for (let i = 0; i < 5; i++)
      expect((await suite.call('/v1/credits', { key: `ev_guess_${i}`, gateway })).status).toBe(401);
    const sixth = await suite.call('/v1/credits', { key: 'ev_guess_6', gateway });
    expect(sixth.status).toBe(429);
    expect(sixth.json.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    const good = await suite.call('/v1/credits', { key: apiKey, style: 'legacy', gateway });
    expect(good.status).toBe(429);
    expect(good.json.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retry_after: expect.any(Number) });
  });
});

describe('rate-limit store unavailable', () => {
  let gateway: number;

  beforeAll(async () => {
    // Nothing listens on port 1: every Redis command fails at once.
    gateway = await suite.startGateway({ REDIS_URL: 'redis://127.0.0.1:1' });
  });

  it('lets requests through (fail open) instead of failing them', async () => {
    const { apiKey } = await suite.createAccount();
    const res = await suite.call('/v1/credits', { key: apiKey, gateway });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    const metrics = await (await fetch(`${suite.gatewayUrl(gateway)}/metrics`)).text();
    expect(metrics).toMatch(/rate_limit_store_failures_total\{[^}]*limiter="other"[^}]*\} [1-9]/);
  });
});
