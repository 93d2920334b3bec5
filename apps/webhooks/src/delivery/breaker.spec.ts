import { describe, expect, it } from 'vitest';
import {
  afterAttempt,
  BREAKER_FIRST_PAUSE_MS,
  BREAKER_MAX_PAUSE_MS,
  type BreakerState,
  breakerView,
  CLOSED,
} from './breaker';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const THRESHOLD = 3;

/** The state after `failures` failed attempts in a row from closed, one millisecond apart. */
function failed(failures: number): BreakerState {
  let state = CLOSED;
  for (let i = 0; i < failures; i++) state = afterAttempt(state, false, NOW + i, THRESHOLD).state;
  return state;
}

describe('the circuit breaker of a webhook', () => {
  it('counts failed attempts and stays closed below the threshold', () => {
    expect(afterAttempt(failed(1), false, NOW, THRESHOLD)).toEqual({
      state: { ...CLOSED, consecutiveFailures: 2 },
      change: 'none',
    });
  });

  it('opens at the threshold, for the first pause', () => {
    const { state, change } = afterAttempt(failed(THRESHOLD - 1), false, NOW, THRESHOLD);
    expect(change).toBe('opened');
    expect(state).toEqual({
      consecutiveFailures: THRESHOLD,
      openedAt: new Date(NOW),
      pauseMs: BREAKER_FIRST_PAUSE_MS,
      retryAt: new Date(NOW + BREAKER_FIRST_PAUSE_MS),
    });
    expect(breakerView(state, NOW)).toBe('open');
  });

  it('only counts a failure that comes while open, before the probe time (an attempt already in flight)', () => {
    const open = failed(THRESHOLD);
    expect(afterAttempt(open, false, NOW + 1_000, THRESHOLD)).toEqual({
      state: { ...open, consecutiveFailures: THRESHOLD + 1 },
      change: 'none',
    });
  });

  it('is half-open from the probe time; a failed probe opens it again for twice as long', () => {
    const open = failed(THRESHOLD);
    const probeAt = open.retryAt!.getTime();
    expect(breakerView(open, probeAt)).toBe('half_open');
    const { state, change } = afterAttempt(open, false, probeAt, THRESHOLD);
    expect(change).toBe('reopened');
    expect(state.pauseMs).toBe(2 * BREAKER_FIRST_PAUSE_MS);
    expect(state.retryAt).toEqual(new Date(probeAt + 2 * BREAKER_FIRST_PAUSE_MS));
    expect(state.openedAt).toEqual(open.openedAt);
    expect(breakerView(state, probeAt + 1)).toBe('open');
  });

  it('doubles the pause at most up to the longest', () => {
    let state: BreakerState = { ...failed(THRESHOLD), pauseMs: BREAKER_MAX_PAUSE_MS - 1 };
    state = afterAttempt(state, false, state.retryAt!.getTime(), THRESHOLD).state;
    expect(state.pauseMs).toBe(BREAKER_MAX_PAUSE_MS);
    state = afterAttempt(state, false, state.retryAt!.getTime(), THRESHOLD).state;
    expect(state.pauseMs).toBe(BREAKER_MAX_PAUSE_MS);
  });

  it('closes on a delivered attempt, whatever its state, and counts afresh', () => {
    const open = failed(THRESHOLD);
    expect(afterAttempt(open, true, open.retryAt!.getTime(), THRESHOLD)).toEqual({
      state: CLOSED,
      change: 'closed',
    });
    expect(afterAttempt(failed(THRESHOLD - 1), true, NOW, THRESHOLD)).toEqual({
      state: CLOSED,
      change: 'none',
    });
    expect(breakerView(CLOSED, NOW)).toBe('closed');
  });
});
