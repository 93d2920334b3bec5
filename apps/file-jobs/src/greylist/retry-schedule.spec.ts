import type { PackedChunkItem } from '@emailverify/contracts';
import { ConfigError } from '@emailverify/service-kit';
import { describe, expect, it } from 'vitest';
import { fileJobsConfig } from '../config';
import { applyRetry, greylistDelays, waitingPositions } from './retry-schedule';

const item = (
  email: string,
  status: PackedChunkItem[1],
  reason: string,
  credits: number,
): PackedChunkItem => [email, status, reason, 0.5, 0, 'grey.test', ['mx.grey.test'], '', credits];
/** file-jobs' configuration from this environment (and the secret it requires). */
const configFrom = (env: Record<string, string>) =>
  fileJobsConfig.load({ DOWNLOAD_SIGNING_SECRET: 'a-download-signing-secret', ...env });
const greylisted = (email: string) => item(email, 'unknown', 'greylisted', 0);
const valid = (email: string) => item(email, 'valid', 'accepted', 1);

describe('GREYLIST_RETRY_DELAYS', () => {
  it('reads comma-separated durations with their units', () => {
    expect(greylistDelays.parse('60s,5m,15m')).toEqual([60_000, 300_000, 900_000]);
    expect(greylistDelays.parse('1s, 2s')).toEqual([1000, 2000]);
    expect(greylistDelays.parse('250ms,1h')).toEqual([250, 3_600_000]);
  });

  it('defaults to 60s,5m,15m, and empty turns the retries off', () => {
    expect(configFrom({}).GREYLIST_RETRY_DELAYS).toEqual([60_000, 300_000, 900_000]);
    expect(configFrom({ GREYLIST_RETRY_DELAYS: '' }).GREYLIST_RETRY_DELAYS).toEqual([]);
  });

  it.each(['60', '5x', '0s', '7h', '1s,,2s', '-1s', '1.5s', 'soon'])(
    'stops the process on %j, naming the variable and the bad part',
    (value) => {
      const load = () => configFrom({ GREYLIST_RETRY_DELAYS: value });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/GREYLIST_RETRY_DELAYS: .*is not a delay/);
    },
  );

  it('refuses more than ten retries', () => {
    expect(() => configFrom({ GREYLIST_RETRY_DELAYS: Array(11).fill('1s').join(',') })).toThrow(
      /GREYLIST_RETRY_DELAYS: at most 10 retries/,
    );
  });
});

describe('waitingPositions', () => {
  const results = [
    valid('a@grey.test'),
    greylisted('b@grey.test'),
    item('c@grey.test', 'unknown', 'mailbox_full', 0),
    item('d@grey.test', 'unknown', 'smtp_timeout', 0),
    greylisted('e@grey.test'),
  ];

  it('keeps the greylisted addresses of a chunk waiting, and nothing else', () => {
    expect(waitingPositions(results, [1000])).toEqual([1, 4]);
  });

  it('keeps nothing waiting when the retries are off', () => {
    expect(waitingPositions(results, [])).toEqual([]);
  });
});

describe('applyRetry', () => {
  const stored = [valid('a@grey.test'), greylisted('b@grey.test'), greylisted('c@grey.test')];
  const delays = [1000, 2000];

  it('settles an address accepted at a retry with its new result, charged as a fresh one', () => {
    const outcome = applyRetry(
      stored,
      [{ position: 1, email: 'b@grey.test', attempts: 1 }],
      [valid('b@grey.test')],
      false,
      delays,
    );
    expect(outcome.settled).toEqual([{ position: 1, item: valid('b@grey.test') }]);
    expect(outcome.again).toEqual([]);
    expect(outcome.addedCredits).toBe(1);
    expect(outcome.results).toEqual([valid('a@grey.test'), valid('b@grey.test'), greylisted('c@grey.test')]);
  });

  it('keeps a still greylisted address waiting for the next delay while retries remain', () => {
    const outcome = applyRetry(
      stored,
      [{ position: 2, email: 'c@grey.test', attempts: 1 }],
      [greylisted('c@grey.test')],
      false,
      delays,
    );
    expect(outcome.again).toEqual([{ position: 2, delayMs: 2000 }]);
    expect(outcome.settled).toEqual([]);
    expect(outcome.addedCredits).toBe(0);
    expect(outcome.results).toEqual(stored);
  });

  it('settles an address still greylisted after the last retry as unknown greylisted, free', () => {
    const outcome = applyRetry(
      stored,
      [{ position: 2, email: 'c@grey.test', attempts: 2 }],
      [greylisted('c@grey.test')],
      false,
      delays,
    );
    expect(outcome.settled).toEqual([{ position: 2, item: greylisted('c@grey.test') }]);
    expect(outcome.again).toEqual([]);
    expect(outcome.addedCredits).toBe(0);
  });

  it('treats a retry the verifier gave up on as unanswered: waits again, then keeps the greylisted result', () => {
    const failed = item('c@grey.test', 'unknown', 'verification_failed', 0);
    const early = applyRetry(
      stored,
      [{ position: 2, email: 'c@grey.test', attempts: 1 }],
      [failed],
      true,
      delays,
    );
    expect(early.again).toEqual([{ position: 2, delayMs: 2000 }]);
    const last = applyRetry(
      stored,
      [{ position: 2, email: 'c@grey.test', attempts: 2 }],
      [failed],
      true,
      delays,
    );
    expect(last.settled).toEqual([{ position: 2, item: greylisted('c@grey.test') }]);
  });

  it('changes nothing for addresses of the answer it did not claim', () => {
    const outcome = applyRetry(
      stored,
      [{ position: 2, email: 'c@grey.test', attempts: 1 }],
      [valid('b@grey.test')],
      false,
      delays,
    );
    expect(outcome).toEqual({ results: stored, settled: [], again: [], addedCredits: 0 });
  });
});
