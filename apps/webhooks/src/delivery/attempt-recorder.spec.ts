import { describe, expect, it, vi } from 'vitest';
import { AttemptRecorder } from './attempt-recorder';
import type { AttemptRecord, AttemptResult, DeliveriesRepository } from './deliveries.repository';

/** A repository whose writes finish when the test says so, recording the batches it was given. */
function pausedRepository() {
  const batches: string[][] = [];
  const finish: Array<(recorded: boolean[]) => void> = [];
  const fail: Array<(err: Error) => void> = [];
  const repo = {
    recordAttempts: (results: readonly AttemptResult[]) => {
      batches.push(results.map((r) => r.attempt.deliveryId));
      return new Promise<boolean[]>((resolve, reject) => {
        finish.push(resolve);
        fail.push(reject);
      });
    },
  } as unknown as DeliveriesRepository;
  return { repo, batches, finish, fail };
}

const attempt = (deliveryId: string): AttemptRecord => ({
  deliveryId,
  webhookId: 'w',
  n: 1,
  at: new Date(),
  httpStatus: 200,
  durationMs: 5,
  error: null,
  responseBody: null,
});

describe('AttemptRecorder', () => {
  it('writes an outcome at once when idle, and the outcomes that arrive meanwhile together next', async () => {
    const { repo, batches, finish } = pausedRepository();
    const recorder = new AttemptRecorder(repo, { disableAfterDays: 5 });
    const a = recorder.record(attempt('a'), { kind: 'success' });
    const b = recorder.record(attempt('b'), { kind: 'success' });
    const c = recorder.record(attempt('c'), { kind: 'success' });
    expect(batches).toEqual([['a']]);
    expect(recorder.pending).toBe(3);
    finish[0]!([true]);
    expect(await a).toBe(true);
    await vi.waitFor(() => expect(batches).toHaveLength(2));
    expect(batches).toEqual([['a'], ['b', 'c']]);
    finish[1]!([false, true]);
    expect([await b, await c]).toEqual([false, true]);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
  });

  it('fails every outcome of a batch whose write failed, and goes on with the next', async () => {
    const { repo, batches, finish, fail } = pausedRepository();
    const recorder = new AttemptRecorder(repo, { disableAfterDays: 5 });
    const a = recorder.record(attempt('a'), { kind: 'success' });
    const b = recorder.record(attempt('b'), { kind: 'retry', nextAttemptAt: new Date() });
    fail[0]!(new Error('connection lost'));
    await expect(a).rejects.toThrow('connection lost');
    await vi.waitFor(() => expect(batches).toHaveLength(2));
    expect(batches).toEqual([['a'], ['b']]);
    finish[1]!([true]);
    expect(await b).toBe(true);
  });
});
