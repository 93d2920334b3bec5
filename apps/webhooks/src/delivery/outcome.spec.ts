import { describe, expect, it } from 'vitest';
import { type AttemptReply, autoDisable, type JudgedAttempt, judgeAttempt } from './outcome';
import { MAX_RETRY_AFTER_MS } from './retry-schedule';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
/** Delays before attempts 1..5. */
const SCHEDULE = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 120 * MINUTE];
const NOW = Date.parse('2026-11-29T10:00:00Z');
const NO_JITTER = () => 0;

const reply = (status: number | null, extra: Partial<AttemptReply> = {}): AttemptReply => ({
  status,
  retryAfter: undefined,
  error: null,
  ...extra,
});
const attempt = (n: number, extra: Partial<JudgedAttempt> = {}): JudgedAttempt => ({
  n,
  maxAttempts: null,
  isActive: true,
  ...extra,
});
const judge = (r: AttemptReply, a: JudgedAttempt, random = NO_JITTER) =>
  judgeAttempt(r, a, SCHEDULE, NOW, random);
/** The retry time an outcome asks for, as a delay from NOW. */
const retryDelay = (r: AttemptReply, a: JudgedAttempt, random = NO_JITTER): number => {
  const { outcome } = judge(r, a, random);
  if (outcome.kind !== 'retry') throw new Error(`expected a retry, got ${outcome.kind}`);
  return outcome.nextAttemptAt.getTime() - NOW;
};

describe('judgeAttempt', () => {
  it.each([200, 201, 204, 299])('delivers on %i, with no error in the log', (status) => {
    expect(judge(reply(status), attempt(1))).toEqual({ outcome: { kind: 'success' }, error: null });
  });

  it('delivers on the last attempt too', () => {
    expect(judge(reply(200), attempt(SCHEDULE.length)).outcome).toEqual({ kind: 'success' });
  });

  it('ends the delivery and deactivates the webhook on 410, even with attempts left', () => {
    expect(judge(reply(410), attempt(1))).toEqual({
      outcome: { kind: 'gone' },
      error: 'The receiver answered 410 Gone: the webhook was deactivated',
    });
  });

  it('retries after the delay the schedule gives the next attempt', () => {
    expect(retryDelay(reply(500), attempt(1))).toBe(5 * SECOND);
    expect(retryDelay(reply(500), attempt(2))).toBe(5 * MINUTE);
    expect(retryDelay(reply(500), attempt(4))).toBe(120 * MINUTE);
  });

  it('adds up to a tenth of the delay as jitter, never less than the schedule', () => {
    expect(retryDelay(reply(500), attempt(2), () => 0.5)).toBe(5 * MINUTE + 15 * SECOND);
    expect(retryDelay(reply(500), attempt(2), () => 0.999)).toBeLessThan(5.5 * MINUTE);
  });

  it.each([
    [301, 'HTTP 301: redirects are not followed'],
    [302, 'HTTP 302: redirects are not followed'],
    [307, 'HTTP 307: redirects are not followed'],
    [400, 'HTTP 400'],
    [404, 'HTTP 404'],
    [429, 'HTTP 429'],
    [500, 'HTTP 500'],
    [503, 'HTTP 503'],
  ])('retries %i and logs %j', (status, error) => {
    const judged = judge(reply(status), attempt(1));
    expect(judged.error).toBe(error);
    expect(judged.outcome).toEqual({ kind: 'retry', nextAttemptAt: new Date(NOW + 5 * SECOND) });
  });

  it.each([429, 503])('waits as long as a %i reply asks in seconds when that is later', (status) => {
    expect(retryDelay(reply(status, { retryAfter: '120' }), attempt(1))).toBe(120 * SECOND);
  });

  it('reads Retry-After as an HTTP date against the time the attempt ended', () => {
    const at = new Date(NOW + 10 * MINUTE).toUTCString();
    expect(retryDelay(reply(429, { retryAfter: at }), attempt(1))).toBe(10 * MINUTE);
  });

  it('keeps the schedule when Retry-After asks for less, or cannot be read', () => {
    expect(retryDelay(reply(503, { retryAfter: '1' }), attempt(2))).toBe(5 * MINUTE);
    expect(retryDelay(reply(429, { retryAfter: 'soon' }), attempt(2))).toBe(5 * MINUTE);
  });

  it('holds a Retry-After to at most a day', () => {
    expect(retryDelay(reply(429, { retryAfter: String(7 * 86_400) }), attempt(1))).toBe(MAX_RETRY_AFTER_MS);
  });

  it.each([500, 502, 504])('ignores Retry-After on %i', (status) => {
    expect(retryDelay(reply(status, { retryAfter: '3600' }), attempt(1))).toBe(5 * SECOND);
  });

  it.each([
    ['a time-out', 'no reply within 10000 ms'],
    ['a network error', 'could not deliver: connect ECONNREFUSED 127.0.0.1:443'],
    ['a refused target', 'the webhook URL resolves to a private address'],
  ])('retries after %s and logs why no reply came', (_, error) => {
    expect(judge(reply(null, { error }), attempt(1))).toEqual({
      outcome: { kind: 'retry', nextAttemptAt: new Date(NOW + 5 * SECOND) },
      error,
    });
  });

  it('logs "no reply" when neither a status nor an error came', () => {
    expect(judge(reply(null), attempt(1)).error).toBe('no reply');
  });

  it.each([
    ['a 5xx', reply(500), 'HTTP 500'],
    ['a 429 asking to wait', reply(429, { retryAfter: '60' }), 'HTTP 429'],
    ['a redirect', reply(302), 'HTTP 302: redirects are not followed'],
    ['a time-out', reply(null, { error: 'no reply within 10000 ms' }), 'no reply within 10000 ms'],
  ])('fails the delivery when the last attempt gets %s', (_, r, error) => {
    expect(judge(r, attempt(SCHEDULE.length))).toEqual({ outcome: { kind: 'failed' }, error });
  });

  it('fails after the attempts a redelivery allows, not the schedule', () => {
    expect(judge(reply(500), attempt(7, { maxAttempts: 7 })).outcome).toEqual({ kind: 'failed' });
    expect(judge(reply(500), attempt(2, { maxAttempts: 2 })).outcome).toEqual({ kind: 'failed' });
  });

  it('uses the last delay of the schedule for attempts a redelivery allows beyond it', () => {
    expect(retryDelay(reply(500), attempt(6, { maxAttempts: 8 }))).toBe(120 * MINUTE);
  });

  it('ends the delivery of a webhook found inactive, with the reason it was not sent', () => {
    const error = 'not sent: the webhook is inactive';
    expect(judge(reply(null, { error }), attempt(1, { isActive: false }))).toEqual({
      outcome: { kind: 'inactive' },
      error,
    });
    // Even a reply that would deliver does not count once the webhook is inactive.
    expect(judge(reply(200), attempt(1, { isActive: false })).outcome).toEqual({ kind: 'inactive' });
  });
});

describe('autoDisable', () => {
  const DAY = 86_400_000;
  const failingFor = (days: number) => ({ isActive: true, failingSince: new Date(NOW - days * DAY) });

  it("keeps a webhook whose first final failure this is, with the attempt's error", () => {
    expect(autoDisable({ isActive: true, failingSince: null }, 'HTTP 500', NOW, 5)).toEqual({
      deactivate: false,
      lastError: 'HTTP 500',
    });
  });

  it('keeps a webhook failing for less than the set days', () => {
    expect(autoDisable(failingFor(4.99), 'HTTP 500', NOW, 5).deactivate).toBe(false);
  });

  it('deactivates one failing for the set days or more, and says why', () => {
    for (const days of [5, 9])
      expect(autoDisable(failingFor(days), 'HTTP 500', NOW, 5)).toEqual({
        deactivate: true,
        lastError: 'Deactivated: every delivery failed for 5 days with no success. Last error: HTTP 500',
      });
    expect(autoDisable(failingFor(5), null, NOW, 5).lastError).toMatch(/Last error: unknown$/);
  });

  it('leaves a webhook that is inactive already as it is', () => {
    expect(autoDisable({ ...failingFor(9), isActive: false }, 'HTTP 500', NOW, 5)).toEqual({
      deactivate: false,
      lastError: 'HTTP 500',
    });
  });
});
