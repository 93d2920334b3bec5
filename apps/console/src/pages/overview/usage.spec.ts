import { describe, expect, it } from 'vitest';
import { creditSeries, isFirstVisit, type Usage } from './usage';

const counts = (total = 0) => ({
  total,
  valid: total,
  invalid: 0,
  unknown: 0,
  risky: 0,
  disposable: 0,
  catchall: 0,
  role: 0,
});

function usage(days: Array<[string, number]>, sandboxTotal = 0): Usage {
  const used = days.reduce((sum, [, n]) => sum + n, 0);
  return {
    from: days[0]![0],
    to: days.at(-1)![0],
    granularity: 'day',
    days: days.map(([date, n]) => ({
      date,
      credits_added: 0,
      credits_used: n,
      verifications: counts(Math.max(0, n)),
      sandbox_verifications: counts(),
    })),
    totals: {
      credits_added: 1000,
      credits_used: used,
      verifications: counts(Math.max(0, used)),
      sandbox_verifications: counts(sandboxTotal),
    },
  };
}

describe('the overview’s usage', () => {
  it('charts credits used per day, a refund-only day as zero', () => {
    expect(
      creditSeries(
        usage([
          ['2026-11-27', 5],
          ['2026-11-28', -2],
          ['2026-11-29', 0],
        ]),
      ),
    ).toEqual({ labels: ['27 Nov', '28 Nov', '29 Nov'], values: [5, 0, 0] });
  });

  it('is a first visit only with no job, no verification and no credit used, sandbox ones included', () => {
    const idle = usage([['2026-11-29', 0]]);
    expect(isFirstVisit(idle, 0)).toBe(true);
    expect(isFirstVisit(idle, 1)).toBe(false);
    expect(isFirstVisit(usage([['2026-11-29', 3]]), 0)).toBe(false);
    expect(isFirstVisit(usage([['2026-11-29', 0]], 4), 0)).toBe(false);
  });
});
