import { describe, expect, it } from 'vitest';
import { DomainError } from './errors';
import { assertBulkSize } from './verification';

describe('assertBulkSize', () => {
  it('allows 1 to max addresses', () => {
    expect(() => assertBulkSize(1, 100)).not.toThrow();
    expect(() => assertBulkSize(100, 100)).not.toThrow();
  });

  it.each([0, 101])('refuses %i addresses with INVALID_REQUEST naming the field and the limit', (count) => {
    let caught: unknown;
    try {
      assertBulkSize(count, 100);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).toBody()).toEqual({
      code: 'INVALID_REQUEST',
      message: `emails must hold between 1 and 100 addresses (got ${count})`,
      details: { field: 'emails', max: 100 },
    });
  });
});
