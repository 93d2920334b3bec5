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

/** A send that records each batch and finishes only when told to. */
function gatedSend() {
  const batches: number[][] = [];
  const gates: Array<{ open: () => void; fail: (err: Error) => void }> = [];
  const send = (items: number[]) => {
    batches.push(items);
    return new Promise<void>((open, fail) => gates.push({ open, fail }));
  };
  return { batches, gates, send };
}

const settled = (p: Promise<unknown>) =>
  p.then(
    () => 'sent',
    (err: Error) => `failed: ${err.message}`,
  );

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

  describe('groups (addAll)', () => {
    it('sends the first group at once and what arrives meanwhile together when that batch ends', async () => {
      const { batches, gates, send } = gatedSend();
      const batcher = new Batches(send, 100);
      const first = settled(batcher.addAll([1]));
      const later = [settled(batcher.addAll([2])), settled(batcher.addAll([3, 4]))];
      expect(batches).toEqual([[1]]);
      gates[0]!.open();
      expect(await first).toBe('sent');
      expect(batches).toEqual([[1], [2, 3, 4]]);
      gates[1]!.open();
      expect(await Promise.all(later)).toEqual(['sent', 'sent']);
      // Idle again: the next group goes out at once.
      const next = settled(batcher.addAll([5]));
      expect(batches).toEqual([[1], [2, 3, 4], [5]]);
      gates[2]!.open();
      expect(await next).toBe('sent');
    });

    it('takes at most `max` items a batch without splitting a group, and a failed batch fails only its groups', async () => {
      const { batches, gates, send } = gatedSend();
      const batcher = new Batches(send, 3);
      const outcomes = [[1], [2, 3], [4], [5, 6, 7, 8], [9]].map((group) => settled(batcher.addAll(group)));
      gates[0]!.open();
      await outcomes[0];
      expect(batches).toEqual([[1], [2, 3, 4]]);
      gates[1]!.fail(new Error('down'));
      await outcomes[2];
      // A group larger than `max` goes alone.
      expect(batches).toEqual([[1], [2, 3, 4], [5, 6, 7, 8]]);
      gates[2]!.open();
      await outcomes[3];
      gates[3]!.open();
      expect(await Promise.all(outcomes)).toEqual(['sent', 'failed: down', 'failed: down', 'sent', 'sent']);
      expect(batches).toEqual([[1], [2, 3, 4], [5, 6, 7, 8], [9]]);
    });

    it("answers each group with its own items' results, in order", async () => {
      const batcher = new Batches<string, string>(async (items) => items.map((i) => i.toUpperCase()), 10);
      const [a, b] = await Promise.all([batcher.addAll(['a']), batcher.addAll(['b', 'c'])]);
      expect(a).toEqual(['A']);
      expect(b).toEqual(['B', 'C']);
    });
  });
});
