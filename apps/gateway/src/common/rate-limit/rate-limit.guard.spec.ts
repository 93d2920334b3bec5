import { Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayHarness, type Reply } from '../../testing/gateway-harness';
import { expectError, STYLES } from '../../testing/replies';

// The per-key limits over HTTP: each route's class, the headers on every authenticated reply, the 429.

const LIMITS = { single: 11, bulk: 12, file: 13, disposable: 4, other: 15 };
const DISPOSABLE = '/v1/verify/disposable?email=someone@mailinator.com';
const JOB = '8f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90';

function expectWindow(res: Reply, limit: number, remaining: number): void {
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
  expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
}

describe('RateLimitGuard', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start({
      env: {
        RATE_LIMIT_SINGLE: String(LIMITS.single),
        RATE_LIMIT_BULK: String(LIMITS.bulk),
        RATE_LIMIT_FILE: String(LIMITS.file),
        RATE_LIMIT_DISPOSABLE: String(LIMITS.disposable),
        RATE_LIMIT_OTHER: String(LIMITS.other),
      },
    });
    // Nothing answers single, bulk, file or credits requests: the limit is counted before the hop, and the
    // headers go on the 503 too.
  });
  afterAll(async () => gateway?.close());

  it.each([
    ['single', 'POST', '/v1/verify/single', { email: 'jane@example.com' }],
    ['bulk', 'POST', '/v1/verify/bulk', { emails: ['jane@example.com'] }],
    ['file', 'GET', `/v1/verify/file/${JOB}`, undefined],
    ['disposable', 'GET', DISPOSABLE, undefined],
    ['other', 'GET', '/v1/credits', undefined],
    ['other', 'GET', '/v1/webhooks', undefined],
  ] as const)('counts %s routes (%s %s) in their own class', async (cls, method, path, body) => {
    const { key } = gateway.newKey();
    const first = await gateway.call(path, { key, method, body });
    expectWindow(first, LIMITS[cls], LIMITS[cls] - 1);
    const second = await gateway.call(path, { key, method, body });
    expectWindow(second, LIMITS[cls], LIMITS[cls] - 2);
  });

  it('sends the headers on error replies of an authenticated request too', async () => {
    const { key } = gateway.newKey();
    const res = await gateway.call('/v1/credits', { key });
    expectError('current', res, 503, 'SERVICE_UNAVAILABLE');
    expectWindow(res, LIMITS.other, LIMITS.other - 1);
  });

  it.each(STYLES)('refuses the request over the limit with 429 and Retry-After (%s style)', async (style) => {
    const { key } = gateway.newKey();
    for (let i = 0; i < LIMITS.disposable; i += 1) {
      expect((await gateway.call(DISPOSABLE, { key, style })).status).toBe(200);
    }
    const refused = await gateway.call(DISPOSABLE, { key, style });
    const error = expectError(style, refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(error.message).toBe(`Rate limit of ${LIMITS.disposable} requests per minute exceeded`);
    expectWindow(refused, LIMITS.disposable, 0);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Only the legacy body repeats it; the current error is code and message alone.
    if (style === 'legacy') expect(error.retry_after).toBe(retryAfter);
  });

  it('keeps each key and each class apart', async () => {
    const { key } = gateway.newKey();
    for (let i = 0; i <= LIMITS.disposable; i += 1) await gateway.call(DISPOSABLE, { key });
    expect((await gateway.call(DISPOSABLE, { key })).status).toBe(429);

    const other = gateway.newKey();
    expectWindow(
      await gateway.call(DISPOSABLE, { key: other.key }),
      LIMITS.disposable,
      LIMITS.disposable - 1,
    );
    gateway.bus.answer(Subjects.webhooksList, () => ({ webhooks: [], total: 0 }));
    const otherClass = await gateway.call('/v1/webhooks', { key });
    expect(otherClass.status).toBe(200);
    expectWindow(otherClass, LIMITS.other, LIMITS.other - 1);
  });
});
