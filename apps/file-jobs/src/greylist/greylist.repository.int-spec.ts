import { randomUUID } from 'node:crypto';
import { type AccountId, type PackedChunkItem, packChunkResults } from '@emailverify/contracts';
import { type DataSource, Sql } from '@emailverify/persistence';
import { openTestDatabase } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunksRepository } from '../jobs/chunks.repository';
import { JobsRepository } from '../jobs/jobs.repository';
import { RepeatBits } from '../jobs/row-key';
import { filesMigrations } from '../migrations';
import { type DueRetry, GreylistRepository } from './greylist.repository';
import { waitingPositions } from './retry-schedule';

const item = (
  email: string,
  status: PackedChunkItem[1],
  reason: string,
  credits: number,
): PackedChunkItem => [email, status, reason, 0.5, 64, email.slice(email.indexOf('@') + 1), [], '', credits];
const greylisted = (email: string) => item(email, 'unknown', 'greylisted', 0);
const valid = (email: string) => item(email, 'valid', 'accepted', 1);

/** Retry delays short enough that a rescheduled address is due again at once. */
const DELAYS = [1, 1];

describe('greylisting retries in PostgreSQL', () => {
  let db: DataSource;
  let drop: () => Promise<void>;
  let jobs: JobsRepository;
  let chunks: ChunksRepository;
  let retries: GreylistRepository;

  beforeAll(async () => {
    ({ db, drop } = await openTestDatabase('files', filesMigrations));
    const sql = new Sql(db);
    jobs = new JobsRepository(sql);
    chunks = new ChunksRepository(sql);
    retries = new GreylistRepository(sql);
  });
  afterAll(async () => {
    await drop?.();
  });

  /** A running check_smtp job of one published chunk holding `emails`. */
  async function runningJob(emails: string[]): Promise<string> {
    const id = randomUUID();
    await jobs.transaction(async (tx) => {
      await tx.insertJob({
        id,
        account_id: randomUUID() as AccountId,
        file_name: 'leads.csv',
        file_size: 100,
        format: 'csv',
        status: 'running',
        email_column: 'email',
        column_index: 0,
        has_header: true,
        headers: ['email'],
        check_smtp: true,
        preserve_original: false,
        enrich: false,
        upload_object: `uploads/${id}`,
        total_rows: emails.length,
        estimated_count: emails.length,
        unique_emails: emails.length,
        billable_emails: emails.length,
        total_chunks: 1,
        chunk_size: 500,
        reservation_key: `file:${id}`,
        request_id: null,
        processed_emails: 0,
        invalid_emails: 0,
      });
      await tx.insertChunks(id, [
        { emails: emails.join('\n'), size: emails.length, repeated: new RepeatBits(emails.length) },
      ]);
    });
    await chunks.publishChunks(id, 1, async () => undefined);
    return id;
  }

  /** Applies a chunk's first answer as the runner does, its greylisted addresses waiting. */
  async function firstAnswer(jobId: string, results: PackedChunkItem[]) {
    const positions = waitingPositions(results, DELAYS);
    return chunks.applyChunkResult(
      jobId,
      0,
      packChunkResults(results),
      false,
      GreylistRepository.waiting(jobId, 0, results, positions, DELAYS[0]!),
    );
  }

  /** The due retries of `jobId` a dispatch sends (others' are sent too, and left aside). */
  async function dispatch(jobId: string, staleSeconds = 300): Promise<DueRetry[]> {
    const sent: DueRetry[] = [];
    await retries.dispatchDue(100, staleSeconds, async (due) => {
      sent.push(due);
    });
    return sent.filter((d) => d.jobId === jobId);
  }

  it('keeps greylisted addresses waiting, uncounted, and settles the chunk once the last of them settles', async () => {
    const id = await runningJob(['a@grey.test', 'b@grey.test', 'c@plain.test']);
    const applied = await firstAnswer(id, [
      greylisted('a@grey.test'),
      greylisted('b@grey.test'),
      valid('c@plain.test'),
    ]);
    expect(applied).toMatchObject({
      status: 'processing',
      processed_emails: 1,
      waiting_emails: 2,
      valid_emails: 1,
      unknown_emails: 0,
      completed_chunks: 0,
    });

    const [first] = await dispatch(id);
    expect(first).toMatchObject({ chunk: 0, checkSmtp: true, emails: ['a@grey.test', 'b@grey.test'] });
    // Claimed: not sent again while its answer is awaited.
    expect(await dispatch(id)).toEqual([]);

    // a is accepted; b is still greylisted and waits for the second delay.
    const partly = await retries.applyRetry(
      id,
      0,
      first!.claim,
      [valid('a@grey.test'), greylisted('b@grey.test')],
      false,
      DELAYS,
    );
    expect(partly).toMatchObject({
      processed_emails: 2,
      waiting_emails: 1,
      valid_emails: 2,
      completed_chunks: 0,
    });
    // The same answer again (a redelivery) changes nothing.
    expect(
      await retries.applyRetry(
        id,
        0,
        first!.claim,
        [valid('a@grey.test'), greylisted('b@grey.test')],
        false,
        DELAYS,
      ),
    ).toBeUndefined();

    const [second] = await dispatch(id);
    expect(second!.emails).toEqual(['b@grey.test']);
    const done = await retries.applyRetry(id, 0, second!.claim, [greylisted('b@grey.test')], false, DELAYS);
    // Still greylisted after the last delay: unknown greylisted, free; the chunk is answered.
    expect(done).toMatchObject({
      processed_emails: 3,
      waiting_emails: 0,
      valid_emails: 2,
      unknown_emails: 1,
      completed_chunks: 1,
    });
    const [chunk] = await chunks.chunkOutcomes(id, 0, 1);
    expect(chunk!.results!.map((r) => `${r.email} ${r.status} ${r.reason} ${r.creditsUsed}`)).toEqual([
      'a@grey.test valid accepted 1',
      'b@grey.test unknown greylisted 0',
      'c@plain.test valid accepted 1',
    ]);
    expect(await jobs.creditsUsed(id)).toBe(2);
    expect(await db.query(`SELECT * FROM files.greylist_retries WHERE job_id = $1`, [id])).toEqual([]);
  });

  it('commits the claim before the retry leaves: an answer that comes back at once finds it', async () => {
    const id = await runningJob(['fast@grey.test']);
    await firstAnswer(id, [greylisted('fast@grey.test')]);
    let settled: unknown;
    await retries.dispatchDue(100, 300, async (due) => {
      if (due.jobId === id)
        settled = await retries.applyRetry(id, 0, due.claim, [valid('fast@grey.test')], false, DELAYS);
    });
    expect(settled).toMatchObject({
      processed_emails: 1,
      waiting_emails: 0,
      valid_emails: 1,
      completed_chunks: 1,
    });
  });

  it('leaves a retry due when its publish fails, without counting it as sent', async () => {
    const id = await runningJob(['away@grey.test']);
    await firstAnswer(id, [greylisted('away@grey.test')]);
    await expect(
      retries.dispatchDue(100, 300, async (due) => {
        if (due.jobId === id) throw new Error('NATS is away');
      }),
    ).rejects.toThrow('NATS is away');
    const [again] = await dispatch(id);
    // Its first sending: one more retry follows a still greylisted answer.
    await retries.applyRetry(id, 0, again!.claim, [greylisted('away@grey.test')], false, DELAYS);
    expect(await dispatch(id)).toHaveLength(1);
  });

  it('takes over a claim never answered; the late answer to the old claim changes nothing', async () => {
    const id = await runningJob(['lost@grey.test']);
    await firstAnswer(id, [greylisted('lost@grey.test')]);
    const [lost] = await dispatch(id);
    const [taken] = await dispatch(id, 0);
    expect(taken!.claim).not.toBe(lost!.claim);
    expect(
      await retries.applyRetry(id, 0, lost!.claim, [valid('lost@grey.test')], false, DELAYS),
    ).toBeUndefined();
    // Taking over is not another attempt: one more retry remains after this still greylisted answer.
    await retries.applyRetry(id, 0, taken!.claim, [greylisted('lost@grey.test')], false, DELAYS);
    const [last] = await dispatch(id);
    expect(
      await retries.applyRetry(id, 0, last!.claim, [valid('lost@grey.test')], false, DELAYS),
    ).toMatchObject({
      valid_emails: 1,
      waiting_emails: 0,
    });
  });

  it('sends no retry for a paused job, and keeps nothing of an answer once the job is cancelled', async () => {
    const id = await runningJob(['held@grey.test']);
    await firstAnswer(id, [greylisted('held@grey.test')]);
    await jobs.transitionInternal(id, ['processing'], 'paused');
    expect(await dispatch(id)).toEqual([]);
    await jobs.transitionInternal(id, ['paused'], 'processing');
    const [due] = await dispatch(id);
    await jobs.transitionInternal(id, ['processing'], 'cancelled');
    expect(
      await retries.applyRetry(id, 0, due!.claim, [valid('held@grey.test')], false, DELAYS),
    ).toBeUndefined();
    expect(await jobs.findByIdInternal(id)).toMatchObject({ valid_emails: 0, waiting_emails: 1 });
    expect(await jobs.creditsUsed(id)).toBe(0);
    // Retention deletes the addresses the job kept waiting with its files.
    await jobs.markFilesDeletedInternal(id);
    expect(await db.query(`SELECT email FROM files.greylist_retries WHERE job_id = $1`, [id])).toEqual([]);
  });

  it('sends no retry for a cancelled job, whose waiting addresses are charged nothing', async () => {
    const id = await runningJob(['left@grey.test', 'done@plain.test']);
    await firstAnswer(id, [greylisted('left@grey.test'), valid('done@plain.test')]);
    await jobs.transitionInternal(id, ['processing'], 'cancelled');
    expect(await dispatch(id)).toEqual([]);
    expect(await jobs.findByIdInternal(id)).toMatchObject({
      processed_emails: 1,
      valid_emails: 1,
      waiting_emails: 1,
    });
    expect(await jobs.creditsUsed(id)).toBe(1);
  });
});
