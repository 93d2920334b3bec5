import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, parseRetrySchedule, withJitter } from './retry-schedule';

describe('parseRetrySchedule', () => {
  it('reads the default schedule in milliseconds', () => {
    expect(parseRetrySchedule('0,5s,5m,30m,2h,5h,10h,10h')).toEqual([
      0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('takes ms, d, decimals and bare seconds', () => {
    expect(parseRetrySchedule(' 250ms, 1.5s ,2, 1d')).toEqual([250, 1_500, 2_000, 86_400_000]);
  });

  it.each(['', '5x', '-1s', '1s,,2s', 'soon'])('refuses %j', (value) => {
    expect(() => parseRetrySchedule(value)).toThrow();
  });
});

describe('withJitter', () => {
  it('adds at most 10% and never subtracts', () => {
    expect(withJitter(10_000, () => 0)).toBe(10_000);
    expect(withJitter(10_000, () => 0.999)).toBe(10_999);
    expect(withJitter(0, () => 0.5)).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
  });
  it('ignores what it cannot read, holds dates in the past at zero, and caps long waits', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('99999999', now)).toBe(MAX_RETRY_AFTER_MS);
  });
});
