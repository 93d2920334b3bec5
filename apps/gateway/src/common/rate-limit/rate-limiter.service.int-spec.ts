import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger, Metrics } from '@emailverify/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayConfig } from '../../config';
import { GatewayMetrics } from '../../gateway.metrics';
import { RateLimiterService } from './rate-limiter.service';

/**
 * `admit` counts in Redis through its own script, which must keep rate-limiter-flexible's key layout, value and
 * expiry (docs/performance.md, "Redis limiter script"): these fail when the library counts elsewhere or otherwise.
 */
describe('the admission script and rate-limiter-flexible count the same window (real Redis)', () => {
  const limit = 50;
  const authLimit = 3;
  let limits: RateLimiterService;

  beforeAll(() => {
    const config = gatewayConfig.load({
      DOWNLOAD_SIGNING_SECRET: 'rate-limiter-spec-download-secret',
      ...process.env,
      REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
      NATS_NAMESPACE: `t_rl_${process.pid}_${randomBytes(3).toString('hex')}`,
      RATE_LIMIT_OTHER: String(limit),
      RATE_LIMIT_AUTH_FAILURES: String(authLimit),
      LOG_LEVEL: 'silent',
    });
    limits = new RateLimiterService(
      config,
      createLogger('gateway', 'silent'),
      new GatewayMetrics(new Metrics('gateway')),
    );
  });
  afterAll(async () => limits?.onApplicationShutdown());

  /** `admit` once Redis is ready (before that it takes the library's path, which is not what is checked). */
  async function admitted(key: string, ip: string) {
    for (;;) {
      const decision = await limits.admit('other', key, ip);
      if (decision.decision?.remaining !== limit) return decision;
      // Let through without counting: the store was not ready yet.
      await sleep(20);
    }
  }

  it("counts into the library's own count of the key", async () => {
    const key = `key-${randomBytes(4).toString('hex')}`;
    const ip = `ip-${randomBytes(4).toString('hex')}`;
    const first = await admitted(key, ip);
    expect(first.decision).toMatchObject({ allowed: true, limit, remaining: limit - 1 });
    // The library's consume sees the script's count, and the script the library's.
    expect(await limits.consume('other', key)).toMatchObject({ allowed: true, remaining: limit - 2 });
    const third = await limits.admit('other', key, ip);
    expect(third.decision).toMatchObject({ allowed: true, remaining: limit - 3 });
    // One window: both tell the same reset time.
    const fourth = await limits.consume('other', key);
    expect(Math.abs(fourth.resetAt - third.decision!.resetAt)).toBeLessThanOrEqual(1);
    expect(fourth.resetAt).toBeGreaterThan(Date.now() / 1000);
  });

  it('refuses an address whose failures the library recorded', async () => {
    const key = `key-${randomBytes(4).toString('hex')}`;
    const ip = `ip-${randomBytes(4).toString('hex')}`;
    await admitted(key, ip);
    for (let n = 0; n <= authLimit; n++) await limits.recordAuthFailure(ip);
    const refused = await limits.admit('other', key, ip);
    expect(refused.blocked).toMatchObject({ allowed: false, limit: authLimit });
    expect(refused.blocked!.retryAfter).toBeGreaterThan(0);
    expect(await limits.authBlocked(ip)).toMatchObject({ allowed: false });
  });
});
