import { describe, expect, it } from 'vitest';
import { SeenCells, TextPool } from './seen-cells';

describe('TextPool', () => {
  it('finds each entry by its number, in the open segment and in closed ones', () => {
    const pool = new TextPool(3, '\n');
    const words = ['a@x.test', 'bb@x.test', '', 'ccc@x.test', 'a@x.test', 'd@x.test', 'e@x.test'];
    expect(words.map((w) => pool.add(w))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    words.forEach((w, i) => {
      expect(pool.equals(i, w)).toBe(true);
      expect(pool.equals(i, `${w}x`)).toBe(false);
      expect(pool.equals(i, w.slice(1))).toBe(w === '');
    });
    expect(pool.segments).toBe(3);
    expect([0, 1, 2].map((s) => pool.segmentText(s))).toEqual([
      'a@x.test\nbb@x.test\n',
      'ccc@x.test\na@x.test\nd@x.test',
      'e@x.test',
    ]);
    expect(pool.equals(6, 'e@x.test')).toBe(true);
  });
});

describe('SeenCells', () => {
  it('tells the cells it has seen apart by their text, addresses from non-addresses, across growth', () => {
    const addresses = new TextPool(500, '\n');
    const others = new TextPool(7);
    const seen = new SeenCells(addresses, others);
    for (let i = 0; i < 20_000; i++) {
      expect(seen.find(`u${i}@x.test`, true)).toBeUndefined();
      seen.add(`u${i}@x.test`, true, addresses.add(`u${i}@x.test`));
      if (i % 10 === 0) seen.add(`u${i}@x.test`, false, others.add(`u${i}@x.test`));
    }
    expect(seen.size).toBe(22_000);
    expect(seen.find('u12345@x.test', true)).toBe(12_345);
    expect(seen.find('u12340@x.test', false)).toBe(-1235);
    expect(seen.find('u12345@x.test', false)).toBeUndefined();
    expect(seen.find('u20000@x.test', true)).toBeUndefined();
    expect(seen.find('U1@x.test', true)).toBeUndefined();
  });
});
