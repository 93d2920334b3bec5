import { type ChunkResultMessage, packChunkResults, packResultFields } from '@emailverify/contracts';
import type { JetStreamKit } from '@emailverify/messaging';
import { fallbackResult } from '@emailverify/verification';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fileJobsConfigSchema } from '../config';
import { GreylistRetries } from './greylist-retries';
import type { GreylistRepository } from './greylist.repository';

const JOB = '6f1c2b4e-0000-4000-8000-000000000001';

/** A chunk's first answer: one accepted address and one greylisted. */
function answer(extra: Partial<ChunkResultMessage> = {}): ChunkResultMessage {
  const greylisted = { ...fallbackResult('grey@example.com'), reason: 'greylisted' as const };
  const valid = {
    ...fallbackResult('ok@example.com'),
    status: 'valid' as const,
    reason: 'accepted' as const,
  };
  return {
    jobId: JOB,
    chunk: 0,
    failed: false,
    results: packChunkResults([
      packResultFields(valid, 1, valid.email),
      packResultFields(greylisted, 0, greylisted.email),
    ]),
    ...extra,
  };
}

describe('GreylistRetries.waitingOf', () => {
  const retries = new GreylistRetries(
    {} as GreylistRepository,
    {} as JetStreamKit,
    fileJobsConfigSchema.parse({
      DOWNLOAD_SIGNING_SECRET: 'greylist-spec-download-secret',
      GREYLIST_RETRY_DELAYS: '60s,5m',
    }),
    pino({ level: 'silent' }),
  );

  it("keeps a live job's greylisted address waiting for a retry", () => {
    expect(retries.waitingOf(answer())?.positions).toEqual([1]);
  });

  it("lets a sandbox job's greylisted address settle at once: a retry would give the table's answer again", () => {
    expect(retries.waitingOf(answer({ sandbox: true }))).toBeUndefined();
  });
});
