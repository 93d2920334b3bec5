import { isGreylistedItem, type PackedChunkItem } from '@emailverify/contracts';
import { z } from 'zod';

/*
 * Anti-greylisting inside file jobs. A mail server that greylists answers a first delivery attempt from a
 * (client IP, sender, recipient) triplet it has not seen with a temporary refusal (450 4.2.0), and accepts the
 * same triplet once a delay has passed. An address whose answer was `greylisted` therefore waits inside its job
 * and is verified again after each delay of GREYLIST_RETRY_DELAYS, before it settles as unknown `greylisted`.
 * The decisions live here, free of storage: which results wait, and what a retry's answer does to them.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
/** Longer than this, the job would sit for hours on a handful of addresses. */
const MAX_DELAY_MS = 6 * 3_600_000;
const MAX_RETRIES = 10;

/**
 * GREYLIST_RETRY_DELAYS: comma-separated delays, each a whole number with a unit (`ms`, `s`, `m`, `h`), e.g.
 * `60s,5m,15m`; empty turns the retries off (a greylisted address settles at once).
 */
export const greylistDelays = z
  .string()
  .default('60s,5m,15m')
  .transform((text, ctx) => {
    const delays: number[] = [];
    for (const part of text.split(',').map((p) => p.trim())) {
      if (part === '' && text.trim() === '') break;
      const match = /^(\d+)(ms|s|m|h)$/.exec(part);
      const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
      if (!(ms > 0 && ms <= MAX_DELAY_MS)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${part}" is not a delay: use comma-separated durations such as 60s,5m,15m (units ms, s, m, h; each above 0 and at most 6h), or nothing to turn the retries off`,
        });
        return z.NEVER;
      }
      delays.push(ms);
    }
    if (delays.length > MAX_RETRIES) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_RETRIES} retries` });
      return z.NEVER;
    }
    return delays;
  });

/** A result the mail server greylisted: worth asking again later. */
export const isGreylisted = isGreylistedItem;

/** Positions of a chunk's results that wait for a retry (none when retries are off). */
export function waitingPositions(results: readonly PackedChunkItem[], delays: readonly number[]): number[] {
  if (delays.length === 0) return [];
  const waiting: number[] = [];
  results.forEach((item, i) => {
    if (isGreylisted(item)) waiting.push(i);
  });
  return waiting;
}

/** An address of a chunk waiting for a retry, as stored. */
export interface WaitingAddress {
  position: number;
  email: string;
  /** Retries sent so far (counting the one being answered). */
  attempts: number;
}

/** What the answer to a retry does to the chunk and its waiting addresses. */
export interface RetryOutcome {
  /** The chunk's results with the settled addresses' final results in place. */
  results: PackedChunkItem[];
  /** Addresses settled by this answer, with their final result. */
  settled: Array<{ position: number; item: PackedChunkItem }>;
  /** Addresses still greylisted that wait again, with the delay before their next retry. */
  again: Array<{ position: number; delayMs: number }>;
  /** Credits the settled addresses add to the chunk (a retry that succeeded is charged as a fresh result). */
  addedCredits: number;
}

/**
 * Applies a retry's answer. An address still greylisted (or whose retry the verifier gave up on, `failed`) waits
 * for its next delay while retries remain; otherwise it settles: with the answer's result when there was one, or
 * with the greylisted result it had, free. Addresses of the answer that were not claimed are ignored (an
 * answer that arrives after its claim was taken over changes nothing).
 */
export function applyRetry(
  stored: readonly PackedChunkItem[],
  claimed: readonly WaitingAddress[],
  answer: readonly PackedChunkItem[],
  failed: boolean,
  delays: readonly number[],
): RetryOutcome {
  const results = [...stored];
  const byEmail = new Map(answer.map((item) => [item[0], item]));
  const outcome: RetryOutcome = { results, settled: [], again: [], addedCredits: 0 };
  for (const waiting of claimed) {
    const item = byEmail.get(waiting.email);
    if (!item) continue;
    const unanswered = failed || isGreylisted(item);
    if (unanswered && waiting.attempts < delays.length) {
      outcome.again.push({ position: waiting.position, delayMs: delays[waiting.attempts]! });
      continue;
    }
    const final = failed ? results[waiting.position]! : item;
    outcome.addedCredits += final[8] - results[waiting.position]![8];
    results[waiting.position] = final;
    outcome.settled.push({ position: waiting.position, item: final });
  }
  return outcome;
}
