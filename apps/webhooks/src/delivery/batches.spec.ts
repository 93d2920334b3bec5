import { describe, expect, it, vi } from 'vitest';
import { Batches } from './batches';

/** A writer whose writes finish when the test says so, recording the batches it was given. */
function pausedWriter() {
  const batches: string[][] = [];
  const finish: Array<(results: boolean[]) => void> = [];
  const fail: Array<(err: Error) => void> = [];
  const write = (items: string[]) => {
    batches.push(items);
    return new Promise<boolean[]>((resolve, reject) => {
      finish.push(resolve);
      fail.push(reject);
    });
  };
  return { write, batches, finish, fail };
}

describe('Batches', () => {
  it('writes an item at once when idle, and the items that arrive meanwhile together next', async () => {
    const { write, batches, finish } = pausedWriter();
    const writer = new Batches(write, 256);
    const a = writer.add('a');
    const b = writer.add('b');
    const c = writer.add('c');
    expect(batches).toEqual([['a']]);
    expect(writer.pending).toBe(3);
    finish[0]!([true]);
    expect(await a).toBe(true);
    await vi.waitFor(() => expect(batches).toHaveLength(2));
    expect(batches).toEqual([['a'], ['b', 'c']]);
    finish[1]!([false, true]);
    expect([await b, await c]).toEqual([false, true]);
    await writer.flush();
    expect(writer.pending).toBe(0);
  });

  it('writes at most the largest batch at a time', async () => {
    const { write, batches, finish } = pausedWriter();
    const writer = new Batches(write, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((item) => writer.add(item));
    finish[0]!([true]);
    await vi.waitFor(() => expect(batches).toHaveLength(2));
    finish[1]!([true, true]);
    await vi.waitFor(() => expect(batches).toHaveLength(3));
    finish[2]!([true, false]);
    expect(batches).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
    expect(await Promise.all(all)).toEqual([true, true, true, true, false]);
  });

  it('fails every item of a batch whose write failed, and goes on with the next', async () => {
    const { write, batches, finish, fail } = pausedWriter();
    const writer = new Batches(write, 256);
    const a = writer.add('a');
    const b = writer.add('b');
    fail[0]!(new Error('connection lost'));
    await expect(a).rejects.toThrow('connection lost');
    await vi.waitFor(() => expect(batches).toHaveLength(2));
    expect(batches).toEqual([['a'], ['b']]);
    finish[1]!([true]);
    expect(await b).toBe(true);
  });
});
