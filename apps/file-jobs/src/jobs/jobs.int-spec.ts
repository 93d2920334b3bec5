import { randomBytes, randomUUID } from 'node:crypto';
import {
  type AccountId,
  type ChunkItemResult,
  type PackedChunkItem,
  packChunkItem,
  packChunkResults,
} from '@emailverify/contracts';
import { readCsv } from '@emailverify/files';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { type DataSource, Sql } from '@emailverify/persistence';
import { openTestDatabase } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileJobsConfigSchema } from '../config';
import { filesMigrations } from '../migrations';
import { JobCreator } from './job-creator';
import { JobFiles } from './job-files';
import { ChunksRepository } from './chunks.repository';
import { JobsRepository } from './jobs.repository';
import { MergeAbandoned, ResultWriter, resultObjectName } from './result-writer';

const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';

async function collectNothing(): Promise<void> {
  throw new Error('no chunk should be published');
}

/** What a verifier would answer for an address (valid, 1 credit), or unknown for the `slow` ones; packed. */
function verified(email: string): PackedChunkItem {
  return packChunkItem(answer(email));
}

function answer(email: string): ChunkItemResult {
  const unknown = email.startsWith('slow');
  return {
    email,
    status: unknown ? 'unknown' : 'valid',
    reason: unknown ? 'smtp_timeout' : 'mx_found',
    score: unknown ? 0.5 : 0.9,
    isDeliverable: !unknown,
    isDisposable: false,
    isCatchall: false,
    isRole: false,
    isFree: false,
    domain: email.slice(email.lastIndexOf('@') + 1),
    mxRecords: ['mx.files.test'],
    domainSuggestion: '',
    smtpCheck: false,
    creditsUsed: unknown ? 0 : 1,
  };
}

describe('file jobs: chunk storage and the merge (real PostgreSQL and NATS)', () => {
  let db: DataSource;
  let sql: Sql;
  let drop: () => Promise<void>;
  let bus: MessageBus;
  let kit: JetStreamKit;
  const config = fileJobsConfigSchema.parse({
    FILE_CHUNK_SIZE: '3',
    DOWNLOAD_SIGNING_SECRET: 'jobs-spec-download-secret',
  });
  const reserved: number[] = [];
  const credits = {
    request: (async (_subject: unknown, payload: { amount: number }) => {
      reserved.push(payload.amount);
      return { ok: true };
    }) as unknown as MessageBus['request'],
  };

  beforeAll(async () => {
    ({ db, drop } = await openTestDatabase('files', filesMigrations));
    sql = new Sql(db);
    bus = await MessageBus.connect({
      url: natsUrl,
      namespace: `t_files_${randomBytes(4).toString('hex')}`,
      name: 'files-spec',
    });
    kit = new JetStreamKit(bus);
  });
  afterAll(async () => {
    await kit?.deleteNamespaceStreams();
    await bus?.close();
    await drop?.();
  });

  /** Stores a CSV as an upload, creates its job, and starts it (as the runner does: pending to running). */
  async function createJob(csv: string, fileName: string, preserveOriginal = false, enrich = false) {
    const upload = `uploads/${randomUUID()}`;
    await (await kit.objectStore('files')).putBlob({ name: upload }, new TextEncoder().encode(csv));
    const view = await new JobCreator(new JobsRepository(sql), kit, credits, config).create(
      {
        accountId: randomUUID() as AccountId,
        fileName,
        fileSize: csv.length,
        uploadObject: upload,
        checkSmtp: false,
        preserveOriginal,
        enrich,
      },
      randomUUID(),
    );
    await new JobsRepository(sql).transitionInternal(view.jobId, ['pending'], 'running', { startedAt: true });
    return view;
  }

  it('stores each address once per chunk, applies a chunk once, and merges every row in input order', async () => {
    const repo = new JobsRepository(sql);
    const chunkRepo = new ChunksRepository(sql);
    const store = await kit.objectStore('files');
    // Chunks of 3: [a, b, c] [d, e, slow] [f]. `a` repeats in a later chunk, `e` two rows on, `f` right away;
    // a cell that is no address and an empty cell are settled without any chunk. `b` first occurs in a form
    // that is not normalised (case, spaces), which the merge must still match to its result.
    const csv = [
      'name,email',
      'r1,a@files.test',
      'r2, b@Files.TEST ',
      'r3,not an address',
      'r4,',
      'r5,c@files.test',
      'r6,d@files.test',
      'r7,e@files.test',
      'r8,slow@files.test',
      'r9,e@FILES.test',
      'r10,f@files.test',
      'r11,f@files.test',
      'r12,a@files.test',
      'r13,not an address',
    ].join('\n');
    const view = await createJob(csv, 'contacts.csv', true);
    expect(view).toMatchObject({ status: 'pending', totalRows: 13, estimatedCount: 12, uniqueEmails: 8 });
    expect(view).toMatchObject({ totalChunks: 3, processedEmails: 1, counts: { invalid: 1 } });
    expect(reserved.at(-1)).toBe(7);

    // A window of two chunks. A publish that fails leaves its chunks queued, to be published again.
    const emails: string[][] = [];
    const collect = async (chunk: number, addresses: string[]) => {
      emails[chunk] = addresses;
    };
    await expect(
      chunkRepo.publishChunks(view.jobId, 2, async () => {
        throw new Error('NATS is away');
      }),
    ).rejects.toThrow('NATS is away');
    expect(await chunkRepo.publishChunks(view.jobId, 2, collect)).toEqual([0, 1]);
    expect(await chunkRepo.publishChunks(view.jobId, 2, collect)).toEqual([]);

    const first = await chunkRepo.applyChunkResult(
      view.jobId,
      0,
      packChunkResults(emails[0]!.map(verified)),
      false,
    );
    expect(first).toMatchObject({ completed_chunks: 1, processed_emails: 4, valid_emails: 3 });
    // The same chunk again (a redelivery): nothing changes.
    expect(
      await chunkRepo.applyChunkResult(view.jobId, 0, packChunkResults(emails[0]!.map(verified)), false),
    ).toBeUndefined();
    expect(await chunkRepo.publishChunks(view.jobId, 2, collect)).toEqual([2]);
    expect(emails).toEqual([
      ['a@files.test', 'b@files.test', 'c@files.test'],
      ['d@files.test', 'e@files.test', 'slow@files.test'],
      ['f@files.test'],
    ]);
    await chunkRepo.applyChunkResult(view.jobId, 1, packChunkResults(emails[1]!.map(verified)), false);
    const failed = emails[2]!.map((email) =>
      packChunkItem({ ...answer(email), status: 'unknown', reason: 'verification_failed', creditsUsed: 0 }),
    );
    const last = await chunkRepo.applyChunkResult(view.jobId, 2, packChunkResults(failed), true);
    expect(last).toMatchObject({
      completed_chunks: 2,
      failed_chunks: 1,
      processed_emails: 8,
      unknown_emails: 2,
    });
    expect(await repo.creditsUsed(view.jobId)).toBe(5);

    const job = (await repo.findByIdInternal(view.jobId))!;
    const name = await new ResultWriter(chunkRepo, kit, config).write(job);
    const stored = await store.get(name);
    const rows: string[][] = [];
    for await (const row of readCsv(stored!.data)) rows.push(row);
    expect(rows[0]!.slice(0, 5)).toEqual(['name', 'email', 'verify_email', 'status', 'reason']);
    expect(rows.slice(1).map((r) => [r[0], r[2], r[3], r[4]])).toEqual([
      ['r1', 'a@files.test', 'valid', 'mx_found'],
      ['r2', 'b@files.test', 'valid', 'mx_found'],
      ['r3', 'not an address', 'invalid', 'invalid_syntax'],
      ['r4', '', 'invalid', 'missing_email'],
      ['r5', 'c@files.test', 'valid', 'mx_found'],
      ['r6', 'd@files.test', 'valid', 'mx_found'],
      ['r7', 'e@files.test', 'valid', 'mx_found'],
      ['r8', 'slow@files.test', 'unknown', 'smtp_timeout'],
      ['r9', 'e@files.test', 'valid', 'mx_found'],
      ['r10', 'f@files.test', 'unknown', 'verification_failed'],
      ['r11', 'f@files.test', 'unknown', 'verification_failed'],
      ['r12', 'a@files.test', 'valid', 'mx_found'],
      ['r13', 'not an address', 'invalid', 'invalid_syntax'],
    ]);
  });

  it("ends an enriched job's rows with has_gravatar and domain_age, repeated and given-up addresses included", async () => {
    const repo = new JobsRepository(sql);
    const chunkRepo = new ChunksRepository(sql);
    const csv = ['email', 'g1@files.test', 'g2@files.test', 'x', 'g1@files.test', 'g4@files.test'].join('\n');
    const view = await createJob(csv, 'enriched.csv', false, true);
    const chunks: string[][] = [];
    await chunkRepo.publishChunks(view.jobId, 2, async (chunk, addresses) => {
      chunks[chunk] = addresses;
    });
    expect(chunks).toEqual([['g1@files.test', 'g2@files.test', 'g4@files.test']]);
    const enriched = chunks[0]!
      .slice(0, 2)
      .map((email, i) => packChunkItem({ ...answer(email), hasGravatar: i === 0, domainAge: 4000 + i }));
    // The third address: given up after every delivery (no extras looked up).
    const givenUp = packChunkItem({
      ...answer('g4@files.test'),
      status: 'unknown',
      reason: 'verification_failed',
      creditsUsed: 0,
    });
    await chunkRepo.applyChunkResult(view.jobId, 0, packChunkResults([...enriched, givenUp]), false);
    const job = (await repo.findByIdInternal(view.jobId))!;
    expect(job.enrich).toBe(true);
    const stored = await (
      await kit.objectStore('files')
    ).get(await new ResultWriter(chunkRepo, kit, config).write(job));
    const rows: string[][] = [];
    for await (const row of readCsv(stored!.data)) rows.push(row);
    expect(rows[0]!.slice(-3)).toEqual(['smtp_check', 'has_gravatar', 'domain_age']);
    expect(rows.slice(1).map((r) => [r[0], r[1], ...r.slice(-2)])).toEqual([
      ['g1@files.test', 'valid', 'true', '4000'],
      ['g2@files.test', 'valid', 'false', '4001'],
      ['x', 'invalid', 'false', '0'],
      ['g1@files.test', 'valid', 'true', '4000'],
      ['g4@files.test', 'unknown', 'false', '0'],
    ]);
  });

  it('applies the results of several chunks together: each once, and nothing of a job cancelled meanwhile', async () => {
    const repo = new JobsRepository(sql);
    const chunkRepo = new ChunksRepository(sql);
    const rows = (prefix: string) =>
      ['email', ...Array.from({ length: 9 }, (_, i) => `${prefix}${i}@files.test`)].join('\n');
    const running = await createJob(rows('run'), 'running.csv');
    const cancelled = await createJob(rows('gone'), 'cancelled.csv');
    const emails = new Map<string, string[][]>();
    for (const view of [running, cancelled]) {
      const chunks: string[][] = [];
      await chunkRepo.publishChunks(view.jobId, 3, async (chunk, addresses) => {
        chunks[chunk] = addresses;
      });
      emails.set(view.jobId, chunks);
    }
    const item = (jobId: string, chunk: number, failed = false) => ({
      jobId,
      chunk,
      failed,
      results: packChunkResults(
        emails.get(jobId)![chunk]!.map((email) =>
          failed
            ? packChunkItem({
                ...answer(email),
                status: 'unknown',
                reason: 'verification_failed',
                creditsUsed: 0,
              })
            : verified(email),
        ),
      ),
    });
    // Chunk 0 of the running job was applied before; the cancelled job is cancelled before its results come.
    await chunkRepo.applyChunkResult(running.jobId, 0, item(running.jobId, 0).results, false);
    await repo.transitionInternal(cancelled.jobId, ['running'], 'cancelled');

    const batch = [
      item(running.jobId, 0),
      item(cancelled.jobId, 0),
      item(running.jobId, 1),
      item(running.jobId, 1),
      item(cancelled.jobId, 1),
      item(running.jobId, 2, true),
    ];
    const jobs = await chunkRepo.applyChunkResults(batch);
    expect(jobs.map((j) => (j ? j.id : undefined))).toEqual([
      undefined, // applied before: a redelivery
      undefined,
      running.jobId,
      undefined, // the same chunk twice in one batch counts once
      undefined,
      running.jobId,
    ]);
    expect(jobs[2]).toMatchObject({
      completed_chunks: 2,
      failed_chunks: 1,
      processed_emails: 9,
      valid_emails: 6,
      unknown_emails: 3,
    });
    expect(await repo.creditsUsed(running.jobId)).toBe(6);
    expect(await repo.findByIdInternal(cancelled.jobId)).toMatchObject({
      status: 'cancelled',
      completed_chunks: 0,
      processed_emails: 0,
    });
    expect(await repo.creditsUsed(cancelled.jobId)).toBe(0);
    // The cancelled job's chunks are still unanswered: nothing of their results was kept.
    const left: Array<{ chunk: number; status: string; results: string | null }> = await db.query(
      `SELECT chunk, status, results FROM files.job_chunks WHERE job_id = $1 ORDER BY chunk`,
      [cancelled.jobId],
    );
    expect(left.map((c) => [c.status, c.results])).toEqual([
      ['published', null],
      ['published', null],
      ['published', null],
    ]);
    // Applying the same batch again changes nothing.
    expect(await chunkRepo.applyChunkResults(batch)).toEqual(batch.map(() => undefined));
    expect(await repo.findByIdInternal(running.jobId)).toMatchObject({
      processed_emails: 9,
      completed_chunks: 2,
    });
  });

  it('refills a window a batch at a time: less room than the batch waits for more answers', async () => {
    const repo = new JobsRepository(sql);
    const chunkRepo = new ChunksRepository(sql);
    // Chunks of 3: 6 chunks.
    const csv = ['email', ...Array.from({ length: 18 }, (_, i) => `w${i}@files.test`)].join('\n');
    const view = await createJob(csv, 'window.csv');
    expect(view.totalChunks).toBe(6);
    const published: number[] = [];
    const collect = async (chunk: number) => {
      published.push(chunk);
    };
    const answer = (chunk: number) =>
      chunkRepo.applyChunkResult(
        view.jobId,
        chunk,
        packChunkResults([0, 1, 2].map((i) => verified(`w${chunk * 3 + i}@files.test`))),
        false,
      );

    // A window of 4 refilled 2 at a time.
    expect(await chunkRepo.publishChunks(view.jobId, 4, collect, 2)).toEqual([0, 1, 2, 3]);
    await answer(0);
    expect(await chunkRepo.publishChunks(view.jobId, 4, collect, 2)).toEqual([]);
    await answer(2);
    // Paused: no refill publishes anything, whatever the room; resumed, the window fills again.
    await repo.transitionInternal(view.jobId, ['running', 'processing'], 'paused');
    expect(await chunkRepo.publishChunks(view.jobId, 4, collect, 2)).toEqual([]);
    await repo.transitionInternal(view.jobId, ['paused'], 'running');
    expect(await chunkRepo.publishChunks(view.jobId, 4, collect, 2)).toEqual([4, 5]);
    // The last chunks: room for more than the queue holds.
    for (const chunk of [1, 3, 4]) await answer(chunk);
    expect(await chunkRepo.publishChunks(view.jobId, 4, collect, 2)).toEqual([]);
    expect(published).toEqual([0, 1, 2, 3, 4, 5]);
    // A lost chunk put back (older than 0 s) goes out again once there is room for a batch.
    expect(await chunkRepo.requeueStale(view.jobId, 0)).toBe(1);
    expect(await chunkRepo.publishChunks(view.jobId, 4, collect, 2)).toEqual([5]);
    const done = await answer(5);
    expect(done).toMatchObject({ completed_chunks: 6, processed_emails: 18 });
  });

  it('keeps a chunk answered that a verifier answered before its refill committed', async () => {
    const repo = new JobsRepository(sql);
    const chunkRepo = new ChunksRepository(sql);
    const csv = ['email', ...Array.from({ length: 6 }, (_, i) => `q${i}@files.test`)].join('\n');
    const view = await createJob(csv, 'quick.csv');
    // A verifier fast enough to answer each chunk before the refill's transaction marks its batch published.
    await chunkRepo.publishChunks(view.jobId, 2, async (chunk, emails) => {
      await chunkRepo.applyChunkResult(view.jobId, chunk, packChunkResults(emails.map(verified)), false);
    });
    const chunks = (await db.query(
      `SELECT chunk, status FROM files.job_chunks WHERE job_id = $1 ORDER BY chunk`,
      [view.jobId],
    )) as Array<{ chunk: number; status: string }>;
    expect(chunks).toEqual([
      { chunk: 0, status: 'done' },
      { chunk: 1, status: 'done' },
    ]);
    // Nothing is in flight or queued, and nothing goes back to the queue to be verified and counted again.
    expect(await chunkRepo.requeueStale(view.jobId, 0)).toBe(0);
    expect(await chunkRepo.publishChunks(view.jobId, 2, collectNothing)).toEqual([]);
    expect(await repo.findByIdInternal(view.jobId)).toMatchObject({
      completed_chunks: 2,
      processed_emails: 6,
    });
  });

  it('follows a job still being verified: waits for each chunk in turn, or gives up storing nothing', async () => {
    const repo = new JobsRepository(sql);
    const chunkRepo = new ChunksRepository(sql);
    const store = await kit.objectStore('files');
    const csv = ['email', ...Array.from({ length: 7 }, (_, i) => `p${i}@files.test`), 'p0@files.test'].join(
      '\n',
    );
    const view = await createJob(csv, 'follow.csv');
    const emails: string[][] = [];
    await chunkRepo.publishChunks(view.jobId, 3, async (chunk, addresses) => {
      emails[chunk] = addresses;
    });
    await chunkRepo.applyChunkResult(view.jobId, 0, packChunkResults(emails[0]!.map(verified)), false);
    const job = (await repo.findByIdInternal(view.jobId))!;
    const writer = new ResultWriter(chunkRepo, kit, config);

    // The job stops (paused, say) while chunks 1 and 2 are outstanding: the merge gives up, nothing stored.
    let asked = 0;
    const stopping = writer.write(job, {
      follow: {
        pollMs: 20,
        active: async () => {
          asked += 1;
          return asked < 3;
        },
      },
    });
    await expect(stopping).rejects.toBeInstanceOf(MergeAbandoned);
    expect(asked).toBe(3);
    expect(await store.info(resultObjectName(view.jobId))).toBeNull();

    // Followed again, it waits for chunks 1 and 2, whose results come in while it runs, and writes every row;
    // chunk 2, answered first, is read once and kept while the merge waits for chunk 1.
    const read: number[] = [];
    const outcomesOf = chunkRepo.chunkOutcomes.bind(chunkRepo);
    chunkRepo.chunkOutcomes = async (...args) => {
      const outcomes = await outcomesOf(...args);
      if (args[3]?.answeredOnly) read.push(...outcomes.map((o) => o.chunk));
      return outcomes;
    };
    let polls = 0;
    const following = writer.write(job, {
      follow: {
        pollMs: 20,
        active: async () => {
          polls += 1;
          if (polls === 2)
            await chunkRepo.applyChunkResult(
              view.jobId,
              2,
              packChunkResults(emails[2]!.map(verified)),
              false,
            );
          if (polls === 4)
            await chunkRepo.applyChunkResult(
              view.jobId,
              1,
              packChunkResults(emails[1]!.map(verified)),
              false,
            );
          return true;
        },
      },
    });
    const name = await following;
    expect(polls).toBeGreaterThanOrEqual(4);
    const rows: string[][] = [];
    for await (const row of readCsv((await store.get(name))!.data)) rows.push(row);
    expect(rows.slice(1).map((r) => [r[0], r[1]])).toEqual([
      ...Array.from({ length: 7 }, (_, i) => [`p${i}@files.test`, 'valid']),
      ['p0@files.test', 'valid'],
    ]);
    expect(read.filter((chunk) => chunk === 2)).toHaveLength(1);
  });

  it('holds a merge by a lease: one holder at a time, taken over once it runs out, completion only by the holder', async () => {
    const repo = new JobsRepository(sql);
    const view = await createJob('email\nlease@files.test\n', 'lease.csv');
    const [first, second] = [randomUUID(), randomUUID()];
    expect(await repo.claimMerge(view.jobId, first, 60)).toMatchObject({ merge_owner: first });
    expect(await repo.claimMerge(view.jobId, second, 60)).toBeUndefined();
    expect(await repo.renewMerge(view.jobId, first, 60)).toBe(true);
    // Only the holder completes the job.
    await repo.transitionInternal(view.jobId, ['running'], 'merging');
    const done = { completedAt: true, creditsUsed: 0, mergeOwner: second };
    expect(await repo.transitionInternal(view.jobId, ['merging'], 'completed', done)).toBeUndefined();
    // A lease that ran out (its process died) is taken over; the old holder then finds it gone.
    await db.query(`UPDATE files.jobs SET merge_lease_until = now() - interval '1 second' WHERE id = $1`, [
      view.jobId,
    ]);
    expect(await repo.claimMerge(view.jobId, second, 60)).toMatchObject({ merge_owner: second });
    expect(await repo.renewMerge(view.jobId, first, 60)).toBe(false);
    await repo.releaseMerge(view.jobId, first); // not its lease any more: changes nothing
    expect(await repo.transitionInternal(view.jobId, ['merging'], 'completed', done)).toMatchObject({
      status: 'completed',
    });
    await repo.releaseMerge(view.jobId, second);
    expect(await repo.findByIdInternal(view.jobId)).toMatchObject({
      merge_owner: null,
      merge_lease_until: null,
    });
  });

  it('refuses to merge a result that is not the address of its row', async () => {
    const repo = new JobsRepository(sql);
    const chunkRepo = new ChunksRepository(sql);
    const view = await createJob('email\nx@files.test\ny@files.test\n', 'two.csv');
    await chunkRepo.applyChunkResult(
      view.jobId,
      0,
      packChunkResults(['y@files.test', 'x@files.test'].map(verified)),
      false,
    );
    const job = (await repo.findByIdInternal(view.jobId))!;
    await expect(new ResultWriter(chunkRepo, kit, config).write(job)).rejects.toThrow(/is for y@files.test/);
  });

  it("retention deletes only the files of jobs that ended long enough ago, keeping each job's record", async () => {
    const repo = new JobsRepository(sql);
    const store = await kit.objectStore('files');
    const ended = await createJob('email\nold@files.test\n', 'old.csv');
    const recent = await createJob('email\nnew@files.test\n', 'new.csv');
    const running = await createJob('email\nrun@files.test\n', 'run.csv');
    await repo.transitionInternal(ended.jobId, ['running'], 'completed', {
      completedAt: true,
      resultObject: resultObjectName(ended.jobId),
    });
    await store.putBlob({ name: resultObjectName(ended.jobId) }, new TextEncoder().encode('email\n'));
    await repo.transitionInternal(recent.jobId, ['running'], 'cancelled', { completedAt: true });
    // Ended two days ago, a day ago, and still running (started three days ago).
    await db.query(`UPDATE files.jobs SET completed_at = now() - interval '2 days' WHERE id = $1`, [
      ended.jobId,
    ]);
    await db.query(`UPDATE files.jobs SET completed_at = now() - interval '1 day' WHERE id = $1`, [
      recent.jobId,
    ]);
    await db.query(`UPDATE files.jobs SET created_at = now() - interval '3 days' WHERE id = $1`, [
      running.jobId,
    ]);
    const objectOf = async (id: string) => (await repo.findByIdInternal(id))!.upload_object;
    /** Whether the object is gone (a deleted object leaves only a marker). */
    const gone = async (name: string) => (await store.info(name))?.deleted ?? true;
    const [endedUpload, recentUpload, runningUpload] = await Promise.all(
      [ended, recent, running].map((v) => objectOf(v.jobId)),
    );

    // Kept 1.5 days: only the job that ended two days ago loses its files.
    const files = new JobFiles(repo, kit, { FILE_RETENTION_DAYS: 1.5 });
    expect(await files.sweepExpired()).toBe(1);
    expect(await gone(endedUpload!)).toBe(true);
    expect(await gone(resultObjectName(ended.jobId))).toBe(true);
    expect(await repo.findByIdInternal(ended.jobId)).toMatchObject({
      status: 'completed',
      files_deleted_at: expect.any(Date),
      result_object: null,
      unique_emails: 1,
    });
    expect(await db.query(`SELECT chunk FROM files.job_chunks WHERE job_id = $1`, [ended.jobId])).toEqual([]);
    for (const [id, upload] of [
      [recent.jobId, recentUpload],
      [running.jobId, runningUpload],
    ] as const) {
      expect(await gone(upload!)).toBe(false);
      expect(await repo.findByIdInternal(id!)).toMatchObject({ files_deleted_at: null });
    }
    // A second pass finds nothing more to do.
    expect(await files.sweepExpired()).toBe(0);
  });

  it('deletes a job only for its own account, with its chunks and an event it still owed', async () => {
    const repo = new JobsRepository(sql);
    const view = await createJob('email\nmine@files.test\n', 'mine.csv');
    await repo.transitionInternal(view.jobId, ['running'], 'failed', {
      completedAt: true,
      error: { code: 'X', message: 'x' },
    });
    expect(await db.query(`SELECT event FROM files.event_outbox WHERE job_id = $1`, [view.jobId])).toEqual([
      { event: 'file.failed' },
    ]);
    expect(await repo.deleteJob(randomUUID() as AccountId, view.jobId)).toBe(false);
    expect(await repo.findByIdInternal(view.jobId)).toBeDefined();
    expect(await repo.deleteJob(view.accountId, view.jobId)).toBe(true);
    expect(await repo.findByIdInternal(view.jobId)).toBeUndefined();
    for (const table of ['job_chunks', 'event_outbox'])
      expect(await db.query(`SELECT job_id FROM files.${table} WHERE job_id = $1`, [view.jobId])).toEqual([]);
    expect(await repo.deleteJob(view.accountId, view.jobId)).toBe(false);
  });
});
