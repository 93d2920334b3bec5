import { describe, expect, it } from 'vitest';
import { KeyedSemaphore } from './semaphore';

describe('KeyedSemaphore', () => {
  it('grants up to the limit per key without waiting, independently per key', async () => {
    const semaphore = new KeyedSemaphore(2);
    const a1 = await semaphore.acquire('a', 1000);
    const a2 = await semaphore.acquire('a', 1000);
    const b1 = await semaphore.acquire('b', 1000);
    expect([a1, a2, b1].every((r) => typeof r === 'function')).toBe(true);
    expect(semaphore.active('a')).toBe(2);
    expect(semaphore.active('b')).toBe(1);
  });

  it('gives undefined when no slot frees within the timeout', async () => {
    const semaphore = new KeyedSemaphore(1);
    await semaphore.acquire('mx', 1000);
    await expect(semaphore.acquire('mx', 20)).resolves.toBeUndefined();
    expect(semaphore.active('mx')).toBe(1);
  });

  it('hands a released slot to the first waiter', async () => {
    const semaphore = new KeyedSemaphore(1);
    const first = await semaphore.acquire('mx', 1000);
    const order: string[] = [];
    const second = semaphore.acquire('mx', 5000).then((r) => (order.push('second'), r));
    const third = semaphore.acquire('mx', 5000).then((r) => (order.push('third'), r));
    first?.();
    const release2 = await second;
    expect(order).toEqual(['second']);
    release2?.();
    const release3 = await third;
    expect(order).toEqual(['second', 'third']);
    release3?.();
    expect(semaphore.active('mx')).toBe(0);
  });

  it('ignores a second release of the same slot', async () => {
    const semaphore = new KeyedSemaphore(2);
    const release = await semaphore.acquire('mx', 1000);
    await semaphore.acquire('mx', 1000);
    release?.();
    release?.();
    expect(semaphore.active('mx')).toBe(1);
  });

  it('does not hand a slot to a waiter that already timed out', async () => {
    const semaphore = new KeyedSemaphore(1);
    const release = await semaphore.acquire('mx', 1000);
    await expect(semaphore.acquire('mx', 10)).resolves.toBeUndefined();
    release?.();
    expect(semaphore.active('mx')).toBe(0);
  });

  it('rejects a limit below one', () => {
    expect(() => new KeyedSemaphore(0)).toThrow(RangeError);
  });
});
