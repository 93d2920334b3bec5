import { describe, expect, it } from 'vitest';
import { type AccountId, asAccountId, isUuid } from './ids';

describe('isUuid', () => {
  it('accepts a UUID of any version in either case, as PostgreSQL does', () => {
    expect(isUuid('3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34')).toBe(true);
    expect(isUuid('3D6F1A52-8C1E-4B7A-9F0E-2A5C7D9E1B34')).toBe(true);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true);
  });

  it('refuses anything else', () => {
    for (const id of [
      '',
      'not-a-uuid',
      '3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b340',
      '3d6f1a528c1e4b7a9f0e2a5c7d9e1b34',
    ])
      expect(isUuid(id)).toBe(false);
    expect(isUuid(' 3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34')).toBe(false);
  });
});

describe('AccountId', () => {
  it('is made only from a UUID', () => {
    expect(asAccountId('3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34')).toBe('3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34');
    expect(asAccountId('not-an-account')).toBeUndefined();
    expect(asAccountId('')).toBeUndefined();
  });

  it('is a string where one is read, but a plain string is not an AccountId (checked by the type checker)', () => {
    const checked: AccountId = asAccountId('3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34')!;
    const asText: string = checked;
    // @ts-expect-error an unchecked string cannot scope a query on customer data
    const unchecked: AccountId = 'not-checked';
    expect([asText, unchecked]).toHaveLength(2);
  });
});
