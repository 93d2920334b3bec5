import { describe, expect, it } from 'vitest';
import { Batcher } from './batcher';

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

const settled = (p: Promise<void>) =>
  p.then(
    () => 'sent',
    (err: Error) => `failed: ${err.message}`,
  );

describe('Batcher', () => {
  it('sends the first group at once and what arrives meanwhile together when that batch ends', async () => {
    const { batches, gates, send } = gatedSend();
    const batcher = new Batcher(send, 100);
    const first = settled(batcher.add([1]));
    const later = [settled(batcher.add([2])), settled(batcher.add([3, 4]))];
    expect(batches).toEqual([[1]]);
    gates[0]!.open();
    expect(await first).toBe('sent');
    expect(batches).toEqual([[1], [2, 3, 4]]);
    gates[1]!.open();
    expect(await Promise.all(later)).toEqual(['sent', 'sent']);
    // Idle again: the next group goes out at once.
    const next = settled(batcher.add([5]));
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
    gates[2]!.open();
    expect(await next).toBe('sent');
  });

  it('takes at most `max` items a batch without splitting a group, and a failed batch fails only its groups', async () => {
    const { batches, gates, send } = gatedSend();
    const batcher = new Batcher(send, 3);
    const outcomes = [[1], [2, 3], [4], [5, 6, 7, 8], [9]].map((group) => settled(batcher.add(group)));
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

  it('answers every group of a batch with what sending the batch returned', async () => {
    const batcher = new Batcher<string, Set<string>>(async (items) => new Set(items), 10);
    const [a, b] = await Promise.all([batcher.add(['a']), batcher.add(['b', 'c'])]);
    expect([...a]).toEqual(['a']);
    expect([...b]).toEqual(['b', 'c']);
  });
});
