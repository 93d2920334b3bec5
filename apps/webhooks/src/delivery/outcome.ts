import type { AttemptOutcome } from './deliveries.repository';
import type { SendResult } from './http-sender';
import { parseRetryAfter, withJitter } from './retry-schedule';

/** What the outcome rule reads of an HTTP exchange: the reply's status and Retry-After, or why none came. */
export type AttemptReply = Pick<SendResult, 'status' | 'retryAfter' | 'error'>;

/** The attempt being judged, as claimed. */
export interface JudgedAttempt {
  /** The number of this attempt (1 for the first). */
  n: number;
  /** The attempts this delivery may have (set by a redelivery); the schedule's length when null. */
  maxAttempts: number | null;
  /** Whether the webhook was active when the attempt was claimed (an inactive one is not sent to). */
  isActive: boolean;
}

/** What an attempt leads to, and the error the delivery log shows for it (null when delivered). */
export interface Judgement {
  outcome: AttemptOutcome;
  error: string | null;
}

const DAY_MS = 86_400_000;

/**
 * The outcome rule: 2xx delivers; 410 ends the delivery and deactivates the webhook; anything else (3xx, which
 * is never followed, 4xx, 5xx, a time-out or a network error) is retried after the schedule's next delay (with
 * jitter, and no sooner than a 429's or 503's Retry-After) until the attempts run out, then fails. An attempt
 * claimed for a webhook that went inactive ends its delivery. The auto-disable rule (`autoDisable`) is applied
 * where a final failure is stored, from the webhook's history.
 *
 * `schedule` holds the delay before each attempt (its last one repeats for attempts allowed beyond it by a
 * redelivery); `now` is when the attempt ended; `random` draws the jitter.
 */
export function judgeAttempt(
  reply: AttemptReply,
  attempt: JudgedAttempt,
  schedule: readonly number[],
  now: number,
  random: () => number = Math.random,
): Judgement {
  if (!attempt.isActive) return { outcome: { kind: 'inactive' }, error: reply.error };
  const status = reply.status;
  if (status !== null && status >= 200 && status < 300) return { outcome: { kind: 'success' }, error: null };
  if (status === 410)
    return {
      outcome: { kind: 'gone' },
      error: 'The receiver answered 410 Gone: the webhook was deactivated',
    };
  const error =
    status === null
      ? (reply.error ?? 'no reply')
      : status >= 300 && status < 400
        ? `HTTP ${status}: redirects are not followed`
        : `HTTP ${status}`;
  const n = attempt.n;
  if (n >= (attempt.maxAttempts ?? schedule.length)) return { outcome: { kind: 'failed' }, error };
  let delayMs = withJitter(schedule[Math.min(n, schedule.length - 1)]!, random);
  if (status === 429 || status === 503) {
    const retryAfter = parseRetryAfter(reply.retryAfter, now);
    if (retryAfter !== undefined) delayMs = Math.max(delayMs, retryAfter);
  }
  return { outcome: { kind: 'retry', nextAttemptAt: new Date(now + delayMs) }, error };
}

/** What the auto-disable rule reads of a webhook when one of its deliveries ends failed. */
export interface FailingWebhook {
  isActive: boolean;
  /** The first final failure since the last success; null when the last final outcome was a success. */
  failingSince: Date | null;
}

/**
 * The auto-disable rule, for a delivery that ends failed (its last attempt failed) at `now`: a webhook whose
 * deliveries have all ended failed for `disableAfterDays` or longer, with no success between, is deactivated,
 * and its last error says why. Otherwise its last error is the attempt's.
 */
export function autoDisable(
  webhook: FailingWebhook,
  error: string | null,
  now: number,
  disableAfterDays: number,
): { deactivate: boolean; lastError: string | null } {
  const since = webhook.failingSince?.getTime() ?? now;
  if (!webhook.isActive || now - since < disableAfterDays * DAY_MS)
    return { deactivate: false, lastError: error };
  return {
    deactivate: true,
    lastError: `Deactivated: every delivery failed for ${disableAfterDays} days with no success. Last error: ${error ?? 'unknown'}`,
  };
}
