import { afterEach, describe, expect, it, vi } from 'vitest';
import { InProcessLimiter } from './rate-limiter.service';

// The in-process limits count as rate-limiter-flexible's RateLimiterMemory did: a fixed window per key from its
// first point, refused points counted too.

describe('InProcessLimiter', () => {
  afterEach(() => vi.useRealTimers());

  it('counts a fixed window per key from its first point, then opens a new one', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const limiter = new InProcessLimiter({ keyPrefix: 'spec', points: 2, duration: 60 });
    expect(limiter.getNow('a')).toBeNull();
    const first = limiter.consumeNow('a');
    expect(first.allowed).toBe(true);
    expect(first.res).toMatchObject({ consumedPoints: 1, remainingPoints: 1, msBeforeNext: 60_000 });
    vi.advanceTimersByTime(10_000);
    expect(limiter.consumeNow('a')).toMatchObject({
      allowed: true,
      res: { consumedPoints: 2, msBeforeNext: 50_000 },
    });
    expect(limiter.consumeNow('b').res.consumedPoints).toBe(1);
    const third = limiter.consumeNow('a');
    expect(third.allowed).toBe(false);
    expect(third.res).toMatchObject({ consumedPoints: 3, remainingPoints: 0 });
    expect(limiter.getNow('a')).toMatchObject({ consumedPoints: 3, msBeforeNext: 50_000 });
    vi.advanceTimersByTime(50_000);
    expect(limiter.getNow('a')).toBeNull();
    expect(limiter.consumeNow('a')).toMatchObject({
      allowed: true,
      res: { consumedPoints: 1, msBeforeNext: 60_000 },
    });
  });

  it('answers consume and get as RateLimiterMemory does: a refusal rejects with the window', async () => {
    const limiter = new InProcessLimiter({ keyPrefix: 'spec', points: 1, duration: 60 });
    await expect(limiter.consume('k')).resolves.toMatchObject({ consumedPoints: 1, remainingPoints: 0 });
    await expect(limiter.consume('k')).rejects.toMatchObject({ consumedPoints: 2, remainingPoints: 0 });
    await expect(limiter.get('k')).resolves.toMatchObject({ consumedPoints: 2 });
    await expect(limiter.get('other')).resolves.toBeNull();
  });
});
