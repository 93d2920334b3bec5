import type { ChunkItemResult, JobState } from '@emailverify/contracts';
import { type DataSource, type EntityManager, returnedRows } from '@emailverify/persistence';

export interface JobRow {
  id: string;
  account_id: string;
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
  upload_object: string;
  result_object: string | null;
  total_rows: number;
  estimated_count: number;
  unique_emails: number;
  billable_emails: number;
  total_chunks: number;
  completed_chunks: number;
  failed_chunks: number;
  processed_emails: number;
  valid_emails: number;
  invalid_emails: number;
  unknown_emails: number;
  risky_emails: number;
  disposable_emails: number;
  catchall_emails: number;
  role_emails: number;
  credits_used: number;
  reservation_key: string;
  settled: boolean;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

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
  | 'upload_object'
  | 'total_rows'
  | 'estimated_count'
  | 'unique_emails'
  | 'billable_emails'
  | 'total_chunks'
  | 'reservation_key'
> & { file_size: number };

export interface EmailRow {
  idx: number;
  email: string;
  chunk: number | null;
  result: ChunkItemResult | null;
}

/**
 * Results of a batch of addresses: one lookup per key on the (job_id, email) index (LATERAL), whatever the
 * statistics. A plain `email = ANY(...)` on a freshly filled, unanalysed table was planned as a scan of the
 * job's rows for every batch, which made merging a million-row file quadratic. `LIMIT 1` (the pair is unique)
 * keeps the planner from flattening the subquery back into that join.
 */
export const RESULTS_LOOKUP_SQL = `SELECT k.email, e.result
    FROM unnest($2::text[]) AS k(email)
    CROSS JOIN LATERAL (SELECT result FROM files.job_emails WHERE job_id = $1 AND email = k.email LIMIT 1) AS e`;

const COUNT_COLUMNS = {
  valid: 'valid_emails',
  invalid: 'invalid_emails',
  unknown: 'unknown_emails',
  risky: 'risky_emails',
  disposable: 'disposable_emails',
  catchall: 'catchall_emails',
  role: 'role_emails',
} as const;

/** Increments of the per-status counters for a set of results. */
export function countIncrements(results: readonly Pick<ChunkItemResult, 'status'>[]): Record<string, number> {
  const inc: Record<string, number> = Object.fromEntries(Object.values(COUNT_COLUMNS).map((c) => [c, 0]));
  for (const r of results) inc[COUNT_COLUMNS[r.status]]! += 1;
  return inc;
}

/** All SQL of the `files` schema. Queries on a customer's job take the account id. */
export class JobsRepository {
  constructor(private readonly db: DataSource) {}

  transaction<T>(work: (tx: JobsTx) => Promise<T>): Promise<T> {
    return this.db.transaction((m) => work(new JobsTx(m)));
  }

  async find(accountId: string, jobId: string): Promise<JobRow | undefined> {
    const rows: JobRow[] = await this.db.query(`SELECT * FROM files.jobs WHERE account_id = $1 AND id = $2`, [
      accountId,
      jobId,
    ]);
    return rows[0];
  }

  /** Internal lookups by id alone: the runner, and a signed download link (whose signature names the job). */
  async findById(jobId: string): Promise<JobRow | undefined> {
    const rows: JobRow[] = await this.db.query(`SELECT * FROM files.jobs WHERE id = $1`, [jobId]);
    return rows[0];
  }

  /** Moves a job from one of `from` to `to`; undefined when it was not in one of them. */
  async transition(
    accountId: string | null,
    jobId: string,
    from: readonly JobState[],
    to: JobState,
    extra: {
      startedAt?: boolean;
      completedAt?: boolean;
      resultObject?: string;
      creditsUsed?: number;
      error?: { code: string; message: string };
    } = {},
  ): Promise<JobRow | undefined> {
    const raw: unknown = await this.db.query(
      `UPDATE files.jobs SET status = $3, updated_at = now(),
              started_at = CASE WHEN $4::boolean THEN COALESCE(started_at, now()) ELSE started_at END,
              completed_at = CASE WHEN $5::boolean THEN now() ELSE completed_at END,
              result_object = COALESCE($6, result_object),
              credits_used = COALESCE($7, credits_used),
              error_code = COALESCE($8, error_code),
              error_message = COALESCE($9, error_message)
        WHERE id = $2 AND ($1::uuid IS NULL OR account_id = $1::uuid) AND status = ANY($10::text[])
        RETURNING *`,
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
      ],
    );
    return returnedRows<JobRow>(raw)[0];
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
   * Claims the next queued chunks of a job so that at most `window` are published and not yet done; the
   * caller publishes them, then marks them published.
   */
  async claimChunks(jobId: string, window: number): Promise<number[]> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT 1 FROM files.jobs WHERE id = $1 FOR UPDATE`, [jobId]);
      const [{ inflight }] = (await m.query(
        `SELECT count(*)::int AS inflight FROM files.job_chunks WHERE job_id = $1 AND status = 'published'`,
        [jobId],
      )) as Array<{ inflight: number }>;
      const room = window - inflight;
      if (room <= 0) return [];
      const rows: Array<{ chunk: number }> = await m.query(
        `SELECT chunk FROM files.job_chunks WHERE job_id = $1 AND status = 'queued' ORDER BY chunk LIMIT $2`,
        [jobId, room],
      );
      if (rows.length === 0) return [];
      const chunks = rows.map((r) => r.chunk);
      // Marked published before the publish itself: a crash in between leaves a published chunk that never
      // arrives, which the runner detects by age and queues again (see requeueStale).
      await m.query(
        `UPDATE files.job_chunks SET status = 'published', published_at = now() WHERE job_id = $1 AND chunk = ANY($2::int[])`,
        [jobId, chunks],
      );
      return chunks;
    });
  }

  /** Puts back chunks published long ago and never answered (e.g. published by a process that died first). */
  async requeueStale(jobId: string, olderThanSeconds: number): Promise<number> {
    const raw: unknown = await this.db.query(
      `UPDATE files.job_chunks SET status = 'queued', published_at = NULL
        WHERE job_id = $1 AND status = 'published' AND published_at < now() - make_interval(secs => $2)
        RETURNING chunk`,
      [jobId, olderThanSeconds],
    );
    return returnedRows(raw).length;
  }

  async chunkEmails(jobId: string, chunk: number): Promise<string[]> {
    const rows: Array<{ email: string }> = await this.db.query(
      `SELECT email FROM files.job_emails WHERE job_id = $1 AND chunk = $2 ORDER BY idx`,
      [jobId, chunk],
    );
    return rows.map((r) => r.email);
  }

  /**
   * Records a chunk's results once: a redelivered or duplicated result message finds the chunk done and
   * changes nothing, so every address is counted (and charged) once.
   */
  async applyChunkResult(
    jobId: string,
    chunk: number,
    results: readonly ChunkItemResult[],
    failed: boolean,
  ): Promise<JobRow | undefined> {
    try {
      return await this.db.transaction(async (m) => {
        // Claiming the chunk row is what makes this happen once; the job row is locked only by the last
        // statement, so results of different chunks of one job are written side by side.
        const claimed: unknown = await m.query(
          `UPDATE files.job_chunks SET status = $3, done_at = now()
            WHERE job_id = $1 AND chunk = $2 AND status IN ('queued', 'published')
            RETURNING chunk`,
          [jobId, chunk, failed ? 'failed' : 'done'],
        );
        if (returnedRows(claimed).length === 0) return undefined;
        await m.query(
          `UPDATE files.job_emails e SET result = r.result
             FROM jsonb_to_recordset($3::jsonb) AS r(email text, result jsonb)
            WHERE e.job_id = $1 AND e.chunk = $2 AND e.email = r.email`,
          [jobId, chunk, JSON.stringify(results.map((result) => ({ email: result.email, result })))],
        );
        const inc = countIncrements(results);
        const raw: unknown = await m.query(
          `UPDATE files.jobs SET
              processed_emails = processed_emails + $2,
              completed_chunks = completed_chunks + $3,
              failed_chunks = failed_chunks + $4,
              valid_emails = valid_emails + $5, invalid_emails = invalid_emails + $6, unknown_emails = unknown_emails + $7,
              risky_emails = risky_emails + $8, disposable_emails = disposable_emails + $9,
              catchall_emails = catchall_emails + $10, role_emails = role_emails + $11,
              status = CASE WHEN status = 'running' THEN 'processing' ELSE status END,
              updated_at = now()
            WHERE id = $1 AND status NOT IN ('cancelled', 'failed')
            RETURNING *`,
          [
            jobId,
            results.length,
            failed ? 0 : 1,
            failed ? 1 : 0,
            inc.valid_emails,
            inc.invalid_emails,
            inc.unknown_emails,
            inc.risky_emails,
            inc.disposable_emails,
            inc.catchall_emails,
            inc.role_emails,
          ],
        );
        const job = returnedRows<JobRow>(raw)[0];
        // A cancelled or failed job keeps nothing of late results.
        if (!job) throw new LateResult();
        return job;
      });
    } catch (err) {
      if (err instanceof LateResult) return undefined;
      throw err;
    }
  }

  /** Results of a batch of keys (normalised addresses, or the raw cell for addresses that failed syntax). */
  async results(jobId: string, keys: readonly string[]): Promise<Map<string, ChunkItemResult>> {
    if (keys.length === 0) return new Map();
    const rows: Array<{ email: string; result: ChunkItemResult | null }> = await this.db.query(
      RESULTS_LOOKUP_SQL,
      [jobId, [...new Set(keys)]],
    );
    return new Map(rows.flatMap((r) => (r.result ? [[r.email, r.result] as const] : [])));
  }

  async creditsUsed(jobId: string): Promise<number> {
    const [row] = (await this.db.query(
      `SELECT COALESCE(SUM((result->>'creditsUsed')::int), 0)::int AS used FROM files.job_emails WHERE job_id = $1 AND result IS NOT NULL`,
      [jobId],
    )) as Array<{ used: number }>;
    return row?.used ?? 0;
  }
}

/** Rolls back the results of a chunk that arrived after its job was cancelled or failed. */
class LateResult extends Error {}

/** Statements of job creation, all in one transaction: a file that fails half-way leaves nothing. */
export class JobsTx {
  constructor(private readonly m: EntityManager) {}

  async insertJob(job: NewJob): Promise<void> {
    await this.m.query(
      `INSERT INTO files.jobs (id, account_id, file_name, file_size, format, status, email_column, column_index, has_header,
         headers, check_smtp, preserve_original, upload_object, total_rows, estimated_count, unique_emails, billable_emails,
         total_chunks, reservation_key)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19)`,
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
        job.reservation_key,
      ],
    );
  }

  async insertEmails(jobId: string, rows: readonly EmailRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.m.query(
      `INSERT INTO files.job_emails (job_id, idx, email, chunk, result)
       SELECT $1, r.idx, r.email, r.chunk, r.result
         FROM jsonb_to_recordset($2::jsonb) AS r(idx int, email text, chunk int, result jsonb)`,
      [jobId, JSON.stringify(rows)],
    );
  }

  async insertChunks(jobId: string, sizes: readonly number[]): Promise<void> {
    if (sizes.length === 0) return;
    await this.m.query(
      `INSERT INTO files.job_chunks (job_id, chunk, size) SELECT $1, g - 1, ($2::int[])[g] FROM generate_series(1, $3) AS g`,
      [jobId, sizes, sizes.length],
    );
  }

  async finishPreparing(
    jobId: string,
    c: { totalRows: number; estimated: number; unique: number; billable: number; chunks: number },
  ): Promise<void> {
    await this.m.query(
      `UPDATE files.jobs SET status = 'pending', total_rows = $2, estimated_count = $3, unique_emails = $4,
              billable_emails = $5, total_chunks = $6, updated_at = now()
        WHERE id = $1`,
      [jobId, c.totalRows, c.estimated, c.unique, c.billable, c.chunks],
    );
  }

  async view(jobId: string): Promise<JobRow> {
    const [row] = (await this.m.query(`SELECT * FROM files.jobs WHERE id = $1`, [jobId])) as JobRow[];
    if (!row) throw new Error(`job ${jobId} vanished inside its own transaction`);
    return row;
  }

  /** Counts the addresses settled at creation (syntax failures), so progress starts where it truly is. */
  async countPrecomputed(jobId: string, results: readonly ChunkItemResult[]): Promise<void> {
    if (results.length === 0) return;
    const inc = countIncrements(results);
    await this.m.query(
      `UPDATE files.jobs SET processed_emails = processed_emails + $2, invalid_emails = invalid_emails + $3 WHERE id = $1`,
      [jobId, results.length, inc.invalid_emails],
    );
  }
}
