/**
 * The circuit breaker of one webhook. A webhook whose last `threshold` attempts all failed is opened: its due
 * deliveries wait (they are not attempted, so they use none of their attempts) until `retryAt`, when one
 * probe attempt goes; a probe that succeeds closes the breaker, one that fails opens it again for twice as
 * long, up to BREAKER_MAX_PAUSE_MS. Any successful attempt closes it. Other webhooks are not affected.
 */

/** The first pause of an opened breaker. */
export const BREAKER_FIRST_PAUSE_MS = 30_000;
/** The longest pause: each failed probe doubles the pause up to this. */
export const BREAKER_MAX_PAUSE_MS = 3_600_000;

/** A breaker as stored on its webhook: all but `consecutiveFailures` are null while it is closed. */
export interface BreakerState {
  consecutiveFailures: number;
  openedAt: Date | null;
  pauseMs: number | null;
  /** When the next probe may go (open until then, half-open after). */
  retryAt: Date | null;
}

/** How the breaker looks to a customer at `now`. */
export type BreakerView = 'closed' | 'open' | 'half_open';

/** What an attempt's outcome did to the breaker (`reopened`: a probe failed). */
export type BreakerChange = 'none' | 'opened' | 'reopened' | 'closed';

export const CLOSED: BreakerState = { consecutiveFailures: 0, openedAt: null, pauseMs: null, retryAt: null };

/**
 * The breaker after one attempt: `delivered` true for a 2xx, false for any failed attempt (retried or final).
 * An attempt that fails while the breaker is open and its probe time is still ahead (one that was in flight
 * when it opened) is counted and changes nothing else.
 */
export function afterAttempt(
  state: BreakerState,
  delivered: boolean,
  now: number,
  threshold: number,
): { state: BreakerState; change: BreakerChange } {
  if (delivered) return { state: CLOSED, change: state.openedAt ? 'closed' : 'none' };
  const consecutiveFailures = state.consecutiveFailures + 1;
  if (state.openedAt) {
    if (state.retryAt && state.retryAt.getTime() > now)
      return { state: { ...state, consecutiveFailures }, change: 'none' };
    const pauseMs = Math.min(2 * (state.pauseMs ?? BREAKER_FIRST_PAUSE_MS), BREAKER_MAX_PAUSE_MS);
    return {
      state: { consecutiveFailures, openedAt: state.openedAt, pauseMs, retryAt: new Date(now + pauseMs) },
      change: 'reopened',
    };
  }
  if (consecutiveFailures < threshold) return { state: { ...CLOSED, consecutiveFailures }, change: 'none' };
  return {
    state: {
      consecutiveFailures,
      openedAt: new Date(now),
      pauseMs: BREAKER_FIRST_PAUSE_MS,
      retryAt: new Date(now + BREAKER_FIRST_PAUSE_MS),
    },
    change: 'opened',
  };
}

/** `open` until the probe time, `half_open` from then until the probe's outcome, `closed` otherwise. */
export function breakerView(state: Pick<BreakerState, 'openedAt' | 'retryAt'>, now: number): BreakerView {
  if (!state.openedAt) return 'closed';
  return state.retryAt && state.retryAt.getTime() > now ? 'open' : 'half_open';
}
