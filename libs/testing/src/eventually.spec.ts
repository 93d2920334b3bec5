import { describe, expect, it } from 'vitest';
import { eventually } from './eventually';

/** A check that fails (by throwing, or as a predicate) until its `passOn`-th call, counting its calls. */
function failsUntil(passOn: number, style: 'throw' | 'false' = 'throw') {
  const check = () => {
    check.calls += 1;
    if (check.calls >= passOn) return `passed on ${check.calls}`;
    if (style === 'false') return false;
    throw new Error(`not yet (${check.calls})`);
  };
  check.calls = 0;
  return check;
}

describe('eventually', () => {
  it('returns what the check returned, calling it once when it passes at once', async () => {
    const check = failsUntil(1);
    expect(await eventually(check)).toBe('passed on 1');
    expect(check.calls).toBe(1);
  });

  it('retries an assertion that throws until it passes', async () => {
    const check = failsUntil(4);
    expect(await eventually(check, { intervalMs: 1 })).toBe('passed on 4');
    expect(check.calls).toBe(4);
  });

  it('retries a predicate that returns false until it passes', async () => {
    const check = failsUntil(3, 'false');
    expect(await eventually(check, { intervalMs: 1 })).toBe('passed on 3');
    expect(check.calls).toBe(3);
  });

  it('retries an async check that rejects', async () => {
    let calls = 0;
    const value = await eventually(
      async () => {
        calls += 1;
        await Promise.resolve();
        expect(calls).toBe(3);
        return calls;
      },
      { intervalMs: 1 },
    );
    expect(value).toBe(3);
  });

  it('takes any result but false as a pass: undefined, null, 0 and the empty string', async () => {
    for (const value of [undefined, null, 0, '']) {
      let calls = 0;
      expect(
        await eventually(() => {
          calls += 1;
          return value;
        }),
      ).toBe(value);
      expect(calls).toBe(1);
    }
  });

  it('pauses intervalMs between attempts', async () => {
    const at: number[] = [];
    await eventually(
      () => {
        at.push(performance.now());
        return at.length === 3;
      },
      { intervalMs: 50 },
    );
    expect(at).toHaveLength(3);
    // A lower bound only (timers count from the event loop's clock, a little behind this one); a busy machine
    // makes the pause longer, never shorter.
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(40);
  });

  it('on timeout rethrows the last failure itself, saying how long and how often it was tried', async () => {
    const thrown: Error[] = [];
    let calls = 0;
    const error = await eventually(
      () => {
        calls += 1;
        const e = new TypeError(`attempt ${calls} failed`);
        thrown.push(e);
        throw e;
      },
      { timeoutMs: 60, intervalMs: 10 },
    ).catch((e: unknown) => e);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(error).toBe(thrown[thrown.length - 1]);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      `still failing after 60 ms and ${calls} attempts: attempt ${calls} failed`,
    );
    expect((error as Error).stack).toContain((error as Error).message);
  });

  it('keeps what an assertion error carries for the report (expected and actual)', async () => {
    const error = await eventually(() => expect(1).toBe(2), { timeoutMs: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: 'still failing after 0 ms and 1 attempt: expected 1 to be 2 // Object.is equality',
      expected: 2,
      actual: 1,
    });
  });

  it('on timeout of a predicate, says that it returned false', async () => {
    await expect(eventually(() => false, { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      /^still failing after 20 ms and \d+ attempts?: the check returned false$/,
    );
  });

  it('wraps a thrown value that is not an Error', async () => {
    await expect(
      eventually(
        () => {
          throw 'a string';
        },
        { timeoutMs: 0 },
      ),
    ).rejects.toThrow('still failing after 0 ms and 1 attempt: a string');
  });

  it('makes one last attempt when the time runs out during a pause, and that attempt counts', async () => {
    const check = failsUntil(2);
    // The pause after the first failure is cut to what is left of the 200 ms; the second attempt passes.
    expect(await eventually(check, { timeoutMs: 200, intervalMs: 60_000 })).toBe('passed on 2');
    expect(check.calls).toBe(2);
  });

  it('awaits an attempt still under way at the deadline and takes its outcome', async () => {
    let calls = 0;
    const value = await eventually(
      async () => {
        calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return 'slow but passed';
      },
      { timeoutMs: 10 },
    );
    expect(value).toBe('slow but passed');
    expect(calls).toBe(1);
  });
});
