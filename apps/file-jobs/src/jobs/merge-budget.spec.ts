import { describe, expect, it } from 'vitest';
import { mayStartMerge, mergeFootprint, RETAINED_BYTES_PER_ADDRESS } from './merge-budget';

describe('mergeFootprint', () => {
  it('counts the repeated cells of the file, nothing for a file without repeats', () => {
    expect(mergeFootprint({ estimated_count: 1_000_000, unique_emails: 900_000 })).toBe(
      100_000 * RETAINED_BYTES_PER_ADDRESS,
    );
    expect(mergeFootprint({ estimated_count: 10, unique_emails: 10 })).toBe(0);
  });
});

describe('mayStartMerge', () => {
  const limits = { concurrency: 3, budgetBytes: 100 };

  it('always starts a merge when none runs, however large', () => {
    expect(mayStartMerge([], 10_000, limits)).toBe(true);
  });

  it('starts another while the footprints together stay within the budget', () => {
    expect(mayStartMerge([40], 60, limits)).toBe(true);
    expect(mayStartMerge([40], 61, limits)).toBe(false);
    expect(mayStartMerge([10, 20], 0, limits)).toBe(true);
  });

  it('never runs more than the concurrency', () => {
    expect(mayStartMerge([0, 0, 0], 0, limits)).toBe(false);
  });
});
