import { describe, expect, it } from 'vitest';
import { AddressPool, addressAt } from './address-pool';

describe('AddressPool', () => {
  it('allocates 127.0.0.10 upward, one address per call', () => {
    const pool = new AddressPool();
    expect([pool.allocate(), pool.allocate(), pool.allocate()]).toEqual([
      '127.0.0.10',
      '127.0.0.11',
      '127.0.0.12',
    ]);
  });

  it('continues in 127.0.1.x after 127.0.0.254 and never hands out .0 to .9', () => {
    expect(addressAt(244)).toBe('127.0.0.254');
    expect(addressAt(245)).toBe('127.0.1.10');
    const pool = new AddressPool();
    const addresses = Array.from({ length: 600 }, () => pool.allocate());
    expect(new Set(addresses).size).toBe(600);
    expect(addresses.every((a) => Number(a.split('.')[3]) >= 10)).toBe(true);
  });
});
