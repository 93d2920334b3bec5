import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /**
   * How long to keep trying, from the first attempt (default 10 s). An attempt still under way when the time
   * runs out is awaited, and counts.
   */
  timeoutMs?: number;
  /** The pause after a failed attempt (default 50 ms). */
  intervalMs?: number;
}

/**
 * Waits for something that happens on its own time: runs `check` until it passes and returns what it
 * returned. `check` is an assertion (it passes when it does not throw) or a predicate (it fails by returning
 * `false`); any other value, `undefined` included, passes. When the time runs out, the last failure is thrown
 * again, its message saying how long and how often it was tried.
 *
 * This is a wait, not a speed bound: give `timeoutMs` room enough that only a system that never gets there
 * runs out of it. It uses real timers.
 */
export async function eventually<T>(
  check: () => T | PromiseLike<T>,
  { timeoutMs = 10_000, intervalMs = 50 }: EventuallyOptions = {},
): Promise<Exclude<T, false>> {
  const deadline = performance.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    let failure: unknown;
    try {
      const result = await check();
      if (result !== false) return result as Exclude<T, false>;
      failure = new Error('the check returned false');
    } catch (err) {
      failure = err;
    }
    const left = deadline - performance.now();
    if (left <= 0) throw stillFailing(failure, timeoutMs, attempt);
    await sleep(Math.min(intervalMs, left));
  }
}

/** The last failure, its message prefixed with the time and attempts it took (its type and details kept). */
function stillFailing(failure: unknown, timeoutMs: number, attempts: number): Error {
  const prefix = `still failing after ${timeoutMs} ms and ${attempts} attempt${attempts === 1 ? '' : 's'}: `;
  if (!(failure instanceof Error)) return new Error(prefix + String(failure));
  const message = failure.message;
  failure.message = prefix + message;
  if (message && failure.stack?.includes(message))
    failure.stack = failure.stack.replace(message, failure.message);
  return failure;
}
