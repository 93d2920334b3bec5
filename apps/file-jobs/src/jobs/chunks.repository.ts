import { Injectable } from '@nestjs/common';
import {
  type ChunkItemResult,
  type ChunkResultCounts,
  chunkItemsOf,
  countChunkItems,
  type PackedChunkItem,
  type PackedChunkResults,
  unpackChunkItem,
  type VerificationStatus,
} from '@emailverify/contracts';
import { type Queryable, Sql } from '@emailverify/persistence';
import type { JobRow } from './jobs.repository';

/** What the merge needs of a chunk: its results (in the order of its addresses) once it was answered. */
export interface ChunkOutcome {
  chunk: number;
  results: ChunkItemResult[] | null;
  /** NULL for chunks made before repeats were recorded: then every address counts as repeated. */
  repeated: Buffer | null;
}

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
  schedule: (tx: Queryable, positions: readonly number[]) => Promise<void>;
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
 * The SQL of a job's chunks (`files.job_chunks`) for the job engine, by ids it read from the database: publishing
 * them within the job's window, putting back those lost on the way, applying their results once (with what they
 * add to their job's progress and counts), and reading them back in order for the merge.
 */
@Injectable()
export class ChunksRepository {
  constructor(private readonly sql: Sql) {}

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
    if (enough > 1 && window - (await this.published(this.sql, jobId)) < enough) return [];
    return this.sql.transaction(async (tx) => {
      // One refill of a job's window at a time (across replicas), without locking the job row: results of other
      // chunks keep being applied meanwhile.
      await tx.rows(`SELECT pg_advisory_xact_lock(hashtextextended('files.publish:' || $1, 0))`, [jobId]);
      const room = window - (await this.published(tx, jobId));
      if (room <= 0 || room < enough) return [];
      const rows = await tx.rows<{ chunk: number; emails: string[] }>(
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
        await tx.affected(
          `UPDATE files.job_chunks SET status = 'published', published_at = now()
            WHERE job_id = $1 AND chunk = ANY($2::int[]) AND status = 'queued'`,
          [jobId, chunks],
        );
      }
      return chunks;
    });
  }

  /** How many of the job's chunks are published and not answered yet. */
  private async published(q: Queryable, jobId: string): Promise<number> {
    const row = await q.one<{ inflight: number }>(
      `SELECT count(*)::int AS inflight FROM files.job_chunks WHERE job_id = $1 AND status = 'published'`,
      [jobId],
    );
    return row!.inflight;
  }

  /** Puts back chunks published long ago and never answered (their message was lost). */
  requeueStale(jobId: string, olderThanSeconds: number): Promise<number> {
    return this.sql.affected(
      `UPDATE files.job_chunks SET status = 'queued', published_at = NULL
        WHERE job_id = $1 AND status = 'published' AND published_at < now() - make_interval(secs => $2)`,
      [jobId, olderThanSeconds],
    );
  }

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
    await this.sql.transaction(async (tx) => {
      for (const [jobId, chunks] of byJob) {
        const group = [...chunks.values()];
        // A job cancelled meanwhile keeps nothing of its chunks' results; the other jobs' stay.
        await tx.affected('SAVEPOINT job_results');
        // One row per chunk, and each chunk's results as a plain text parameter (in a text[] the driver would
        // escape every quote of their JSON, and PostgreSQL parse it back), picked by the row's place. The
        // results stay out of the joined rows: however the planner joins them to the job's open chunks (a
        // nested loop reads the rows again for every open chunk), it moves a few numbers per row, never the
        // tens of KiB of each chunk's results.
        const rows = group.map((_, i) => `($${4 * i + 2}::int, $${4 * i + 3}, $${4 * i + 4}::int, ${i})`);
        const picks = group.map((_, i) => `WHEN ${i} THEN $${4 * i + 5}`);
        const claimed = await tx.rows<{ chunk: number }>(
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
        const taken = new Set(claimed.map((r) => r.chunk));
        const mine = group.filter((g) => taken.has(g.chunk));
        if (mine.length === 0) {
          await tx.affected('RELEASE SAVEPOINT job_results');
          continue;
        }
        const job = await addToJob(tx, jobId, {
          settled: sumCounts(mine.map((g) => g.results.counts)),
          completedChunks: mine.filter((g) => !g.failed).length,
          failedChunks: mine.filter((g) => g.failed).length,
          waiting: 0,
        });
        if (!job) {
          await tx.affected('ROLLBACK TO SAVEPOINT job_results');
          continue;
        }
        await tx.affected('RELEASE SAVEPOINT job_results');
        for (const g of mine) applied.set(g, job);
      }
    });
    return items.map((item) => applied.get(item));
  }

  /**
   * Records a chunk's results once: a redelivered or duplicated result message finds the chunk done and
   * changes nothing, so every address is counted (and charged) once.
   */
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
      return await this.sql.transaction(async (tx) => {
        // Claiming the chunk row is what makes this happen once; the job row is locked only by the last
        // statement, so results of different chunks of one job are written side by side.
        const claimed = await tx.affected(
          `UPDATE files.job_chunks SET status = $3, done_at = now(), results = $4, credits_used = $5
            WHERE job_id = $1 AND chunk = $2 AND status IN ('queued', 'published')`,
          [
            jobId,
            chunk,
            failed ? 'failed' : positions.length > 0 ? 'waiting' : 'done',
            results.text,
            results.counts.credits,
          ],
        );
        if (claimed === 0) return undefined;
        if (positions.length > 0) await waiting!.schedule(tx, positions);
        const job = await addToJob(tx, jobId, {
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

  /**
   * Chunks `from` .. `from + count - 1` of a job, in order, for the merge, but those in `except`; with
   * `answeredOnly`, only the chunks whose results are in (done or failed): for a merge that runs while the job is
   * still being verified.
   */
  async chunkOutcomes(
    jobId: string,
    from: number,
    count: number,
    { except = [], answeredOnly = false }: { except?: readonly number[]; answeredOnly?: boolean } = {},
  ): Promise<ChunkOutcome[]> {
    const rows = await this.sql.rows<{ chunk: number; results: string | null; repeated: Buffer | null }>(
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
export function addToJob(tx: Queryable, jobId: string, add: JobAdditions): Promise<JobRow | undefined> {
  const inc = countIncrements(add.settled);
  return tx.one<JobRow>(
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
}
