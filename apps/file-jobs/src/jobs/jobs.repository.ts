import {
  type AccountId,
  type ChunkItemResult,
  type ChunkResultCounts,
  chunkItemsOf,
  countChunkItems,
  eventOfState,
  type JobState,
  type PackedChunkItem,
  type PackedChunkResults,
  unpackChunkItem,
  type VerificationStatus,
} from '@emailverify/contracts';
import { type DataSource, type EntityManager, returnedRows } from '@emailverify/persistence';
import type { RepeatBits } from './row-key';

export interface JobRow {
  id: string;
  account_id: AccountId;
  file_name: string;
  file_size: string;
  format: 'csv' | 'txt' | 'xlsx';
  status: JobState;
  email_column: string;
  column_index: number;
  has_header: boolean;
  headers: string[];
  check_smtp: boolean;
  preserve_original: boolean;
  /** Gravatar and domain-age lookups for every address, and their columns in the result file (upload `enrich`). */
  enrich: boolean;
  upload_object: string;
  result_object: string | null;
  total_rows: number;
  estimated_count: number;
  unique_emails: number;
  billable_emails: number;
  total_chunks: number;
  /** Addresses per chunk when the job was made: the n-th verifiable address is in chunk n / chunk_size. */
  chunk_size: number;
  completed_chunks: number;
  failed_chunks: number;
  processed_emails: number;
  /** Addresses waiting for a greylisting retry: not in processed_emails nor in the counts yet. */
  waiting_emails: number;
  valid_emails: number;
  invalid_emails: number;
  unknown_emails: number;
  risky_emails: number;
  disposable_emails: number;
  catchall_emails: number;
  role_emails: number;
  credits_used: number;
  reservation_key: string;
  /** The request that created the job (X-Request-Id): the job's later work carries it. */
  request_id: string | null;
  settled: boolean;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  /** When retention (or nothing else) deleted the job's files; the record and counts stay. */
  files_deleted_at: Date | null;
  merge_owner: string | null;
  merge_lease_until: Date | null;
}

/** What deleting a job's files needs to know of it. */
export type JobFilesRow = Pick<JobRow, 'id' | 'upload_object' | 'result_object'>;

export type NewJob = Pick<
  JobRow,
  | 'id'
  | 'account_id'
  | 'file_name'
  | 'format'
  | 'status'
  | 'email_column'
  | 'column_index'
  | 'has_header'
  | 'headers'
  | 'check_smtp'
  | 'preserve_original'
  | 'enrich'
  | 'upload_object'
  | 'total_rows'
  | 'estimated_count'
  | 'unique_emails'
  | 'billable_emails'
  | 'total_chunks'
  | 'chunk_size'
  | 'reservation_key'
  | 'request_id'
  | 'processed_emails'
  | 'invalid_emails'
> & { file_size: number };

export interface NewChunk {
  /**
   * The chunk's addresses, normalised, in first-seen order, joined by line feeds (which no address holds): one
   * flat string per chunk while a large file's job is made, rather than a string per address.
   */
  emails: string;
  /** How many addresses `emails` holds. */
  size: number;
  /** Which of them occur again further down the file. */
  repeated: RepeatBits;
}

/** What the merge needs of a chunk: its results (in the order of its addresses) once it was answered. */
export interface ChunkOutcome {
  chunk: number;
  results: ChunkItemResult[] | null;
  /** NULL for chunks made before repeats were recorded: then every address counts as repeated. */
  repeated: Buffer | null;
}

/** What a state change records besides the state. */
export interface TransitionExtra {
  startedAt?: boolean;
  completedAt?: boolean;
  resultObject?: string;
  creditsUsed?: number;
  error?: { code: string; message: string };
  /** Only while this merge holds the job's merge lease (see claimMerge). */
  mergeOwner?: string;
}

/** A state change: from one of these states, to this one, recording this besides. */
type Move = [from: readonly JobState[], to: JobState, extra?: TransitionExtra];

/** Chunks per INSERT when a job is created. */
const CHUNK_INSERT_BATCH = 100;

const COUNT_COLUMNS = {
  valid: 'valid_emails',
  invalid: 'invalid_emails',
  unknown: 'unknown_emails',
  risky: 'risky_emails',
  disposable: 'disposable_emails',
  catchall: 'catchall_emails',
  role: 'role_emails',
} as const;

/**
 * Addresses of a chunk that wait for a retry (greylisted): they are not counted yet, and `schedule` records
 * them in the transaction that applies the chunk.
 */
export interface WaitingPlan {
  positions: readonly number[];
  schedule: (m: EntityManager, positions: readonly number[]) => Promise<void>;
}

function withoutPositions(
  results: readonly PackedChunkItem[],
  positions: readonly number[],
): PackedChunkItem[] {
  const skip = new Set(positions);
  return results.filter((_, i) => !skip.has(i));
}

/** Increments of the per-status counters for counted results. */
function countIncrements(counts: ChunkResultCounts): Record<string, number> {
  const inc: Record<string, number> = Object.fromEntries(Object.values(COUNT_COLUMNS).map((c) => [c, 0]));
  for (const [status, n] of Object.entries(counts.statuses) as Array<[keyof typeof COUNT_COLUMNS, number]>)
    inc[COUNT_COLUMNS[status]]! += n;
  return inc;
}

/**
 * All SQL of the `files` schema. What a customer asks about their job (find, transition, deleteJob) takes their
 * account (AccountId), so another account's job is never found. The job engine (runner, merger, retention) works
 * on jobs by id across accounts: findByIdInternal, transitionInternal and the retention methods say so in their
 * names, and the chunk, window and outbox methods serve only the engine, with ids it read from the database.
 */
export class JobsRepository {
  constructor(private readonly db: DataSource) {}

  transaction<T>(work: (tx: JobsTx) => Promise<T>): Promise<T> {
    return this.db.transaction((m) => work(new JobsTx(m)));
  }

  async find(accountId: AccountId, jobId: string): Promise<JobRow | undefined> {
    const rows: JobRow[] = await this.db.query(`SELECT * FROM files.jobs WHERE account_id = $1 AND id = $2`, [
      accountId,
      jobId,
    ]);
    return rows[0];
  }

  /**
   * Erases a customer's job: its row, its chunks (with their addresses and results) and an event it still owed,
   * in one transaction. False when the account has no such job.
   */
  async deleteJob(accountId: AccountId, jobId: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const raw: unknown = await m.query(
        `DELETE FROM files.jobs WHERE account_id = $1 AND id = $2 RETURNING id`,
        [accountId, jobId],
      );
      if (returnedRows(raw).length === 0) return false;
      await m.query(`DELETE FROM files.event_outbox WHERE job_id = $1`, [jobId]);
      return true;
    });
  }

  /**
   * Internal, across accounts (the retention sweep): jobs that ended more than `days` ago and whose files are
   * still kept, the longest-ended first.
   */
  async filesPastRetentionInternal(days: number, limit: number): Promise<JobFilesRow[]> {
    return this.db.query(
      `SELECT id, upload_object, result_object FROM files.jobs
        WHERE files_deleted_at IS NULL
          AND status IN ('completed', 'completed_with_warning', 'failed', 'cancelled')
          AND completed_at < now() - make_interval(secs => $1::float8)
        ORDER BY completed_at LIMIT $2`,
      [days * 86_400, limit],
    );
  }

  /**
   * Internal (the retention sweep), once the job's stored objects are gone: the addresses and results its chunks
   * kept go too, and the job records when; its row and counts stay.
   */
  async markFilesDeletedInternal(jobId: string): Promise<void> {
    await this.db.transaction(async (m) => {
      await m.query(`DELETE FROM files.job_chunks WHERE job_id = $1`, [jobId]);
      // Addresses a cancelled or failed job still had waiting for a greylisting retry.
      await m.query(`DELETE FROM files.greylist_retries WHERE job_id = $1`, [jobId]);
      await m.query(
        `UPDATE files.jobs SET files_deleted_at = now(), result_object = NULL, updated_at = now()
          WHERE id = $1 AND files_deleted_at IS NULL`,
        [jobId],
      );
    });
  }

  /**
   * Claims the job's merge for `owner` for `leaseSeconds`: one merge of a job at a time, across replicas,
   * without holding a connection. Taken when nobody holds it or the holder's lease ran out (its process died
   * or lost the database for that long). Returns the job, or undefined when another merge holds it.
   */
  async claimMerge(jobId: string, owner: string, leaseSeconds: number): Promise<JobRow | undefined> {
    const raw: unknown = await this.db.query(
      `UPDATE files.jobs SET merge_owner = $2, merge_lease_until = now() + make_interval(secs => $3)
        WHERE id = $1 AND (merge_owner IS NULL OR merge_owner = $2 OR merge_lease_until < now())
        RETURNING *`,
      [jobId, owner, leaseSeconds],
    );
    return returnedRows<JobRow>(raw)[0];
  }

  /** Extends a held merge lease; false when `owner` no longer holds it (another merge took it over). */
  async renewMerge(jobId: string, owner: string, leaseSeconds: number): Promise<boolean> {
    const raw: unknown = await this.db.query(
      `UPDATE files.jobs SET merge_lease_until = now() + make_interval(secs => $3)
        WHERE id = $1 AND merge_owner = $2
        RETURNING id`,
      [jobId, owner, leaseSeconds],
    );
    return returnedRows(raw).length > 0;
  }

  async releaseMerge(jobId: string, owner: string): Promise<void> {
    await this.db.query(
      `UPDATE files.jobs SET merge_owner = NULL, merge_lease_until = NULL WHERE id = $1 AND merge_owner = $2`,
      [jobId, owner],
    );
  }

  /** Internal lookups by id alone: the runner, and a signed download link (whose signature names the job). */
  async findByIdInternal(jobId: string): Promise<JobRow | undefined> {
    const rows: JobRow[] = await this.db.query(`SELECT * FROM files.jobs WHERE id = $1`, [jobId]);
    return rows[0];
  }

  /** Moves a customer's job from one of `from` to `to`; undefined when it is not theirs or not in one of them. */
  transition(accountId: AccountId, jobId: string, ...move: Move): Promise<JobRow | undefined> {
    return this.move(accountId, jobId, ...move);
  }

  /** As transition, for the runner and the merger, which drive any job by its id. */
  transitionInternal(jobId: string, ...move: Move): Promise<JobRow | undefined> {
    return this.move(null, jobId, ...move);
  }

  private async move(
    accountId: AccountId | null,
    jobId: string,
    from: readonly JobState[],
    to: JobState,
    extra: TransitionExtra = {},
  ): Promise<JobRow | undefined> {
    // A state that emits an event records the intent in the same statement (the outbox), so a crash before the
    // event is published delays it but never loses it: the runner's recovery publishes what is left.
    const raw: unknown = await this.db.query(
      `WITH moved AS (
         UPDATE files.jobs SET status = $3, updated_at = now(),
                started_at = CASE WHEN $4::boolean THEN COALESCE(started_at, now()) ELSE started_at END,
                completed_at = CASE WHEN $5::boolean THEN now() ELSE completed_at END,
                result_object = COALESCE($6, result_object),
                credits_used = COALESCE($7, credits_used),
                error_code = COALESCE($8, error_code),
                error_message = COALESCE($9, error_message)
          WHERE id = $2 AND ($1::uuid IS NULL OR account_id = $1::uuid) AND status = ANY($10::text[])
            AND ($12::uuid IS NULL OR merge_owner = $12::uuid)
          RETURNING *),
       outbox AS (
         INSERT INTO files.event_outbox (job_id, event)
         SELECT id, $11::text FROM moved WHERE $11::text IS NOT NULL
         ON CONFLICT DO NOTHING)
       SELECT * FROM moved`,
      [
        accountId,
        jobId,
        to,
        extra.startedAt ?? false,
        extra.completedAt ?? false,
        extra.resultObject ?? null,
        extra.creditsUsed ?? null,
        extra.error?.code ?? null,
        extra.error?.message ?? null,
        from,
        eventOfState(to) ?? null,
        extra.mergeOwner ?? null,
      ],
    );
    return returnedRows<JobRow>(raw)[0];
  }

  /** Events recorded with their job's state change and not yet published, oldest first (recovery). */
  async unpublishedEvents(olderThanSeconds: number): Promise<Array<{ job_id: string; event: string }>> {
    return (await this.db.query(
      `SELECT job_id, event FROM files.event_outbox
        WHERE created_at < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT 100`,
      [olderThanSeconds],
    )) as Array<{ job_id: string; event: string }>;
  }

  /** The event is on the EVENTS stream: its outbox row goes. */
  async markEventPublished(jobId: string, event: string): Promise<void> {
    await this.db.query(`DELETE FROM files.event_outbox WHERE job_id = $1 AND event = $2`, [jobId, event]);
  }

  async markSettled(jobId: string): Promise<void> {
    await this.db.query(`UPDATE files.jobs SET settled = true WHERE id = $1`, [jobId]);
  }

  /** Jobs the runner must look after (any replica may; the work it does is claimed with row locks). */
  async activeJobIds(): Promise<Array<{ id: string; status: JobState }>> {
    return this.db.query(
      `SELECT id, status FROM files.jobs WHERE status IN ('pending', 'running', 'processing', 'merging') ORDER BY created_at LIMIT 1000`,
    );
  }

  /**
   * Publishes the next queued chunks of a job so that at most `window` are published and not yet answered.
   * One replica refills a job's window at a time (a transaction-scoped advisory lock), and a chunk is marked
   * published in the same transaction, after its message was accepted: a crash in between leaves it queued, and
   * publishing it again is harmless (the message id makes JetStream drop the copy; a copy that got through is
   * verified twice and applied once).
   *
   * With `minBatch`, a window with less room than that is left as it is: the chunks in flight keep the
   * verifiers busy, and a refill of several chunks costs one transaction instead of one each. As every chunk
   * in flight is answered (or requeued when lost), the room always comes.
   */
  async publishChunks(
    jobId: string,
    window: number,
    publish: (chunk: number, emails: string[]) => Promise<void>,
    minBatch = 1,
  ): Promise<number[]> {
    const enough = Math.min(minBatch, window);
    // Looked at first without a transaction or the lock: most results leave less room than a refill waits for,
    // and then nothing more is asked. The room is looked at again under the lock.
    if (enough > 1 && window - (await this.published(this.db, jobId)) < enough) return [];
    return this.db.transaction(async (m) => {
      // One refill of a job's window at a time (across replicas), without locking the job row: results of other
      // chunks keep being applied meanwhile.
      await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('files.publish:' || $1, 0))`, [jobId]);
      const room = window - (await this.published(m, jobId));
      if (room <= 0 || room < enough) return [];
      const rows: Array<{ chunk: number; emails: string[] }> = await m.query(
        // As JSON (the driver's JSON.parse reads it far faster than it takes a text[] literal apart), converted
        // after the LIMIT: in the select list of a sorted scan it would convert every queued chunk of the job.
        // Only while the job is being verified: a refill that was already on its way when the job was paused,
        // cancelled or failed publishes nothing.
        `SELECT q.chunk, array_to_json(q.emails) AS emails
           FROM (SELECT chunk, emails FROM files.job_chunks
                  WHERE job_id = $1 AND status = 'queued' ORDER BY chunk LIMIT $2) q
          WHERE EXISTS (SELECT 1 FROM files.jobs j WHERE j.id = $1 AND j.status IN ('running', 'processing'))
          ORDER BY q.chunk`,
        [jobId, room],
      );
      for (const { chunk, emails } of rows) await publish(chunk, emails);
      const chunks = rows.map((r) => r.chunk);
      if (chunks.length > 0) {
        // Only chunks still queued: a verifier may have answered one already (its result applied by another
        // connection while this transaction published the rest), and an answered chunk stays answered.
        await m.query(
          `UPDATE files.job_chunks SET status = 'published', published_at = now()
            WHERE job_id = $1 AND chunk = ANY($2::int[]) AND status = 'queued'`,
          [jobId, chunks],
        );
      }
      return chunks;
    });
  }

  /** How many of the job's chunks are published and not answered yet. */
  private async published(db: Pick<EntityManager, 'query'>, jobId: string): Promise<number> {
    const [{ inflight }] = (await db.query(
      `SELECT count(*)::int AS inflight FROM files.job_chunks WHERE job_id = $1 AND status = 'published'`,
      [jobId],
    )) as Array<{ inflight: number }>;
    return inflight;
  }

  /** Puts back chunks published long ago and never answered (their message was lost). */
  async requeueStale(jobId: string, olderThanSeconds: number): Promise<number> {
    const raw: unknown = await this.db.query(
      `UPDATE files.job_chunks SET status = 'queued', published_at = NULL
        WHERE job_id = $1 AND status = 'published' AND published_at < now() - make_interval(secs => $2)
        RETURNING chunk`,
      [jobId, olderThanSeconds],
    );
    return returnedRows(raw).length;
  }

  /**
   * Records a chunk's results once: a redelivered or duplicated result message finds the chunk done and
   * changes nothing, so every address is counted (and charged) once.
   */
  /**
   * As applyChunkResult for the results of several chunks at once (of one job or several; none with addresses
   * left waiting): one transaction, and per job one statement claiming its chunks and one adding to the job
   * row, which is then locked once for them all instead of once per chunk through each commit. Each item gets
   * its job after the batch, or undefined when its chunk was applied already (a redelivery; the same chunk
   * twice in the batch counts once) or its job is no longer running (that job's chunks keep nothing).
   */
  async applyChunkResults(items: readonly ChunkResultToApply[]): Promise<Array<JobRow | undefined>> {
    const byJob = new Map<string, Map<number, ChunkResultToApply>>();
    for (const item of items) {
      let chunks = byJob.get(item.jobId);
      if (!chunks) byJob.set(item.jobId, (chunks = new Map()));
      if (!chunks.has(item.chunk)) chunks.set(item.chunk, item);
    }
    const applied = new Map<ChunkResultToApply, JobRow>();
    await this.db.transaction(async (m) => {
      for (const [jobId, chunks] of byJob) {
        const group = [...chunks.values()];
        // A job cancelled meanwhile keeps nothing of its chunks' results; the other jobs' stay.
        await m.query('SAVEPOINT job_results');
        // One row per chunk, and each chunk's results as a plain text parameter (in a text[] the driver would
        // escape every quote of their JSON, and PostgreSQL parse it back), picked by the row's place. The
        // results stay out of the joined rows: however the planner joins them to the job's open chunks (a
        // nested loop reads the rows again for every open chunk), it moves a few numbers per row, never the
        // tens of KiB of each chunk's results.
        const rows = group.map((_, i) => `($${4 * i + 2}::int, $${4 * i + 3}, $${4 * i + 4}::int, ${i})`);
        const picks = group.map((_, i) => `WHEN ${i} THEN $${4 * i + 5}`);
        const claimed: unknown = await m.query(
          `UPDATE files.job_chunks c
              SET status = u.status, done_at = now(), credits_used = u.credits,
                  results = CASE u.place ${picks.join(' ')} END
             FROM (VALUES ${rows.join(', ')}) AS u(chunk, status, credits, place)
            WHERE c.job_id = $1 AND c.chunk = u.chunk AND c.status IN ('queued', 'published')
            RETURNING c.chunk`,
          [
            jobId,
            ...group.flatMap((g) => [
              g.chunk,
              g.failed ? 'failed' : 'done',
              g.results.counts.credits,
              g.results.text,
            ]),
          ],
        );
        const taken = new Set(returnedRows<{ chunk: number }>(claimed).map((r) => r.chunk));
        const mine = group.filter((g) => taken.has(g.chunk));
        if (mine.length === 0) {
          await m.query('RELEASE SAVEPOINT job_results');
          continue;
        }
        const job = await addToJob(m, jobId, {
          settled: sumCounts(mine.map((g) => g.results.counts)),
          completedChunks: mine.filter((g) => !g.failed).length,
          failedChunks: mine.filter((g) => g.failed).length,
          waiting: 0,
        });
        if (!job) {
          await m.query('ROLLBACK TO SAVEPOINT job_results');
          continue;
        }
        await m.query('RELEASE SAVEPOINT job_results');
        for (const g of mine) applied.set(g, job);
      }
    });
    return items.map((item) => applied.get(item));
  }

  async applyChunkResult(
    jobId: string,
    chunk: number,
    results: PackedChunkResults,
    failed: boolean,
    waiting?: WaitingPlan,
  ): Promise<JobRow | undefined> {
    const positions = failed ? [] : (waiting?.positions ?? []);
    // The results are stored as they came; only a chunk with addresses left waiting is counted item by item.
    const settled =
      positions.length === 0
        ? results.counts
        : countChunkItems(withoutPositions(chunkItemsOf(results.text), positions));
    try {
      return await this.db.transaction(async (m) => {
        // Claiming the chunk row is what makes this happen once; the job row is locked only by the last
        // statement, so results of different chunks of one job are written side by side.
        const claimed: unknown = await m.query(
          `UPDATE files.job_chunks SET status = $3, done_at = now(), results = $4, credits_used = $5
            WHERE job_id = $1 AND chunk = $2 AND status IN ('queued', 'published')
            RETURNING chunk`,
          [
            jobId,
            chunk,
            failed ? 'failed' : positions.length > 0 ? 'waiting' : 'done',
            results.text,
            results.counts.credits,
          ],
        );
        if (returnedRows(claimed).length === 0) return undefined;
        if (positions.length > 0) await waiting!.schedule(m, positions);
        const job = await addToJob(m, jobId, {
          settled,
          completedChunks: failed || positions.length > 0 ? 0 : 1,
          failedChunks: failed ? 1 : 0,
          waiting: positions.length,
        });
        // A cancelled or failed job keeps nothing of late results.
        if (!job) throw new LateResult();
        return job;
      });
    } catch (err) {
      if (err instanceof LateResult) return undefined;
      throw err;
    }
  }

  /** Chunks `from` .. `from + count - 1` of a job, in order, for the merge, but those in `except`. */
  chunkOutcomes(
    jobId: string,
    from: number,
    count: number,
    except: readonly number[] = [],
  ): Promise<ChunkOutcome[]> {
    return this.outcomes(jobId, from, count, false, except);
  }

  /**
   * As chunkOutcomes, but only the chunks whose results are in (done or failed): for a merge that runs while the
   * job is still being verified.
   */
  answeredChunkOutcomes(
    jobId: string,
    from: number,
    count: number,
    except: readonly number[] = [],
  ): Promise<ChunkOutcome[]> {
    return this.outcomes(jobId, from, count, true, except);
  }

  private async outcomes(
    jobId: string,
    from: number,
    count: number,
    answeredOnly: boolean,
    except: readonly number[],
  ): Promise<ChunkOutcome[]> {
    const rows: Array<{ chunk: number; results: string | null; repeated: Buffer | null }> =
      await this.db.query(
        `SELECT chunk, results, repeated FROM files.job_chunks
        WHERE job_id = $1 AND chunk >= $2 AND chunk < $2 + $3
          AND (NOT $4::boolean OR status IN ('done', 'failed'))
          AND chunk <> ALL($5::int[])
        ORDER BY chunk`,
        [jobId, from, count, answeredOnly, except],
      );
    return rows.map((r) => ({
      chunk: r.chunk,
      results: r.results === null ? null : chunkItemsOf(r.results).map(unpackChunkItem),
      repeated: r.repeated,
    }));
  }

  async creditsUsed(jobId: string): Promise<number> {
    const [row] = (await this.db.query(
      `SELECT COALESCE(SUM(credits_used), 0)::int AS used FROM files.job_chunks WHERE job_id = $1`,
      [jobId],
    )) as Array<{ used: number }>;
    return row?.used ?? 0;
  }
}

/** Results of one chunk to apply with others (applyChunkResults): no address of theirs waits for a retry. */
export interface ChunkResultToApply {
  jobId: string;
  chunk: number;
  results: PackedChunkResults;
  failed: boolean;
}

/** The counts of several chunks' results together. */
function sumCounts(all: readonly ChunkResultCounts[]): ChunkResultCounts {
  const sum: ChunkResultCounts = { addresses: 0, statuses: {}, credits: 0, greylisted: 0 };
  for (const counts of all) {
    sum.addresses += counts.addresses;
    sum.credits += counts.credits;
    sum.greylisted += counts.greylisted;
    for (const [status, n] of Object.entries(counts.statuses) as Array<[VerificationStatus, number]>)
      sum.statuses[status] = (sum.statuses[status] ?? 0) + n;
  }
  return sum;
}

/** Rolls back the results of a chunk that arrived after its job was cancelled or failed. */
export class LateResult extends Error {}

/** What applying results adds to their job. */
export interface JobAdditions {
  /** Results now settled: processed and counted. */
  settled: ChunkResultCounts;
  completedChunks: number;
  failedChunks: number;
  /** Change of the addresses waiting for a greylisting retry. */
  waiting: number;
}

/**
 * Adds settled results, answered chunks and waiting addresses to their job, in the caller's transaction, unless
 * the job was cancelled or failed (undefined then).
 */
export async function addToJob(
  m: EntityManager,
  jobId: string,
  add: JobAdditions,
): Promise<JobRow | undefined> {
  const inc = countIncrements(add.settled);
  const raw: unknown = await m.query(
    `UPDATE files.jobs SET
        processed_emails = processed_emails + $2,
        completed_chunks = completed_chunks + $3,
        failed_chunks = failed_chunks + $4,
        waiting_emails = waiting_emails + $12,
        valid_emails = valid_emails + $5, invalid_emails = invalid_emails + $6, unknown_emails = unknown_emails + $7,
        risky_emails = risky_emails + $8, disposable_emails = disposable_emails + $9,
        catchall_emails = catchall_emails + $10, role_emails = role_emails + $11,
        status = CASE WHEN status = 'running' THEN 'processing' ELSE status END,
        updated_at = now()
      WHERE id = $1 AND status NOT IN ('cancelled', 'failed')
      RETURNING *`,
    [
      jobId,
      add.settled.addresses,
      add.completedChunks,
      add.failedChunks,
      inc.valid_emails,
      inc.invalid_emails,
      inc.unknown_emails,
      inc.risky_emails,
      inc.disposable_emails,
      inc.catchall_emails,
      inc.role_emails,
      add.waiting,
    ],
  );
  return returnedRows<JobRow>(raw)[0];
}

/** Statements of job creation, all in one transaction: a file that fails half-way leaves nothing. */
export class JobsTx {
  constructor(private readonly m: EntityManager) {}

  async insertJob(job: NewJob): Promise<void> {
    await this.m.query(
      `INSERT INTO files.jobs (id, account_id, file_name, file_size, format, status, email_column, column_index, has_header,
         headers, check_smtp, preserve_original, upload_object, total_rows, estimated_count, unique_emails, billable_emails,
         total_chunks, chunk_size, reservation_key, processed_emails, invalid_emails, request_id, enrich)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24)`,
      [
        job.id,
        job.account_id,
        job.file_name,
        job.file_size,
        job.format,
        job.status,
        job.email_column,
        job.column_index,
        job.has_header,
        JSON.stringify(job.headers),
        job.check_smtp,
        job.preserve_original,
        job.upload_object,
        job.total_rows,
        job.estimated_count,
        job.unique_emails,
        job.billable_emails,
        job.total_chunks,
        job.chunk_size,
        job.reservation_key,
        job.processed_emails,
        job.invalid_emails,
        job.request_id,
        job.enrich,
      ],
    );
  }

  /** The job's chunks, numbered from 0 in the order given, a batch of them per statement. */
  async insertChunks(jobId: string, chunks: readonly NewChunk[]): Promise<void> {
    for (let first = 0; first < chunks.length; first += CHUNK_INSERT_BATCH) {
      const batch = chunks.slice(first, first + CHUNK_INSERT_BATCH).map((c) => ({
        e: c.emails,
        s: c.size,
        r: Buffer.from(c.repeated.bytes()).toString('base64'),
      }));
      await this.m.query(
        // json_to_recordset parses each element once (->> on a json value would parse it again per field).
        `INSERT INTO files.job_chunks (job_id, chunk, size, emails, repeated)
         SELECT $1, $2::int + (c.n - 1)::int, c.s, string_to_array(c.e, E'\\n'), decode(c.r, 'base64')
           FROM ROWS FROM (json_to_recordset($3::json) AS (e text, s int, r text)) WITH ORDINALITY AS c(e, s, r, n)`,
        [jobId, first, JSON.stringify(batch)],
      );
    }
  }

  async view(jobId: string): Promise<JobRow> {
    const [row] = (await this.m.query(`SELECT * FROM files.jobs WHERE id = $1`, [jobId])) as JobRow[];
    if (!row) throw new Error(`job ${jobId} vanished inside its own transaction`);
    return row;
  }
}
