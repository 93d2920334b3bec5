import { Injectable } from '@nestjs/common';
import { type AccountId, eventOfState, type JobState } from '@emailverify/contracts';
import { type Queryable, Sql } from '@emailverify/persistence';
import type { JobCursor } from './job-cursor';
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
  /** The uploading key's mode: a sandbox job reserves nothing and is answered from the sandbox table. */
  mode: 'live' | 'sandbox';
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

/** A job as the list reads it, with created_at as text to the microsecond (the page cursor's key). */
export type ListedJobRow = JobRow & { created_key: string };

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
> & { file_size: number } & Partial<Pick<JobRow, 'mode'>>;

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

/**
 * The SQL of jobs (`files.jobs`, their event outbox, their creation). What a customer asks about their job (find,
 * transition, deleteJob) takes their account (AccountId), so another account's job is never found. The job
 * engine (runner, merger, retention) works on jobs by id across accounts: findByIdInternal, transitionInternal
 * and the retention methods say so in their names, and the merge lease and outbox methods serve only the engine,
 * with ids it read from the database. A job's chunks are ChunksRepository's.
 */
@Injectable()
export class JobsRepository {
  constructor(private readonly sql: Sql) {}

  transaction<T>(work: (tx: JobsTx) => Promise<T>): Promise<T> {
    return this.sql.transaction((tx) => work(new JobsTx(tx)));
  }

  find(accountId: AccountId, jobId: string): Promise<JobRow | undefined> {
    return this.sql.one<JobRow>(`SELECT * FROM files.jobs WHERE account_id = $1 AND id = $2`, [
      accountId,
      jobId,
    ]);
  }

  /**
   * One page of a customer's jobs, newest first: (created_at, id) descending, which jobs_account_list_idx
   * serves, starting strictly after `after`. Each row carries its cursor key: created_at to the microsecond.
   */
  listPage(
    accountId: AccountId,
    page: { statuses?: readonly JobState[]; after?: JobCursor; limit: number; mode?: JobRow['mode'] },
  ): Promise<ListedJobRow[]> {
    return this.sql.rows<ListedJobRow>(
      `SELECT *, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key
         FROM files.jobs
        WHERE account_id = $1
          AND ($2::text[] IS NULL OR status = ANY($2::text[]))
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
          AND ($6::text IS NULL OR mode = $6)
        ORDER BY created_at DESC, id DESC
        LIMIT $5`,
      [
        accountId,
        page.statuses ?? null,
        page.after?.createdAt ?? null,
        page.after?.id ?? null,
        page.limit,
        page.mode ?? null,
      ],
    );
  }

  /**
   * Erases a customer's job: its row, its chunks (with their addresses and results) and an event it still owed,
   * in one transaction. False when the account has no such job.
   */
  async deleteJob(accountId: AccountId, jobId: string): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const deleted = await tx.affected(`DELETE FROM files.jobs WHERE account_id = $1 AND id = $2`, [
        accountId,
        jobId,
      ]);
      if (deleted === 0) return false;
      await tx.affected(`DELETE FROM files.event_outbox WHERE job_id = $1`, [jobId]);
      return true;
    });
  }

  /**
   * Internal, across accounts (the retention sweep): jobs that ended more than `days` ago and whose files are
   * still kept, the longest-ended first.
   */
  filesPastRetentionInternal(days: number, limit: number): Promise<JobFilesRow[]> {
    return this.sql.rows<JobFilesRow>(
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
    await this.sql.transaction(async (tx) => {
      await tx.affected(`DELETE FROM files.job_chunks WHERE job_id = $1`, [jobId]);
      // Addresses a cancelled or failed job still had waiting for a greylisting retry.
      await tx.affected(`DELETE FROM files.greylist_retries WHERE job_id = $1`, [jobId]);
      await tx.affected(
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
  claimMerge(jobId: string, owner: string, leaseSeconds: number): Promise<JobRow | undefined> {
    return this.sql.one<JobRow>(
      `UPDATE files.jobs SET merge_owner = $2, merge_lease_until = now() + make_interval(secs => $3)
        WHERE id = $1 AND (merge_owner IS NULL OR merge_owner = $2 OR merge_lease_until < now())
        RETURNING *`,
      [jobId, owner, leaseSeconds],
    );
  }

  /** Extends a held merge lease; false when `owner` no longer holds it (another merge took it over). */
  async renewMerge(jobId: string, owner: string, leaseSeconds: number): Promise<boolean> {
    const renewed = await this.sql.affected(
      `UPDATE files.jobs SET merge_lease_until = now() + make_interval(secs => $3)
        WHERE id = $1 AND merge_owner = $2`,
      [jobId, owner, leaseSeconds],
    );
    return renewed > 0;
  }

  async releaseMerge(jobId: string, owner: string): Promise<void> {
    await this.sql.affected(
      `UPDATE files.jobs SET merge_owner = NULL, merge_lease_until = NULL WHERE id = $1 AND merge_owner = $2`,
      [jobId, owner],
    );
  }

  /** Internal lookups by id alone: the runner, and a signed download link (whose signature names the job). */
  findByIdInternal(jobId: string): Promise<JobRow | undefined> {
    return this.sql.one<JobRow>(`SELECT * FROM files.jobs WHERE id = $1`, [jobId]);
  }

  /** Moves a customer's job from one of `from` to `to`; undefined when it is not theirs or not in one of them. */
  transition(accountId: AccountId, jobId: string, ...move: Move): Promise<JobRow | undefined> {
    return this.move(accountId, jobId, ...move);
  }

  /** As transition, for the runner and the merger, which drive any job by its id. */
  transitionInternal(jobId: string, ...move: Move): Promise<JobRow | undefined> {
    return this.move(null, jobId, ...move);
  }

  private move(
    accountId: AccountId | null,
    jobId: string,
    from: readonly JobState[],
    to: JobState,
    extra: TransitionExtra = {},
  ): Promise<JobRow | undefined> {
    // A state that emits an event records the intent in the same statement (the outbox), so a crash before the
    // event is published delays it but never loses it: the runner's recovery publishes what is left.
    return this.sql.one<JobRow>(
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
  }

  /** Events recorded with their job's state change and not yet published, oldest first (recovery). */
  unpublishedEvents(olderThanSeconds: number): Promise<Array<{ job_id: string; event: string }>> {
    return this.sql.rows<{ job_id: string; event: string }>(
      `SELECT job_id, event FROM files.event_outbox
        WHERE created_at < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT 100`,
      [olderThanSeconds],
    );
  }

  /** The event is on the EVENTS stream: its outbox row goes. */
  async markEventPublished(jobId: string, event: string): Promise<void> {
    await this.sql.affected(`DELETE FROM files.event_outbox WHERE job_id = $1 AND event = $2`, [
      jobId,
      event,
    ]);
  }

  async markSettled(jobId: string): Promise<void> {
    await this.sql.affected(`UPDATE files.jobs SET settled = true WHERE id = $1`, [jobId]);
  }

  /** Jobs the runner must look after (any replica may; the work it does is claimed with row locks). */
  activeJobIds(): Promise<Array<{ id: string; status: JobState }>> {
    return this.sql.rows<{ id: string; status: JobState }>(
      `SELECT id, status FROM files.jobs WHERE status IN ('pending', 'running', 'processing', 'merging') ORDER BY created_at LIMIT 1000`,
    );
  }

  /** What the job's answered chunks cost together. */
  async creditsUsed(jobId: string): Promise<number> {
    const row = await this.sql.one<{ used: number }>(
      `SELECT COALESCE(SUM(credits_used), 0)::int AS used FROM files.job_chunks WHERE job_id = $1`,
      [jobId],
    );
    return row?.used ?? 0;
  }
}

/** Statements of job creation, all in one transaction: a file that fails half-way leaves nothing. */
export class JobsTx {
  constructor(private readonly tx: Queryable) {}

  async insertJob(job: NewJob): Promise<void> {
    await this.tx.affected(
      `INSERT INTO files.jobs (id, account_id, file_name, file_size, format, status, email_column, column_index, has_header,
         headers, check_smtp, preserve_original, upload_object, total_rows, estimated_count, unique_emails, billable_emails,
         total_chunks, chunk_size, reservation_key, processed_emails, invalid_emails, request_id, enrich, mode)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25)`,
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
        job.mode ?? 'live',
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
      await this.tx.affected(
        // json_to_recordset parses each element once (->> on a json value would parse it again per field).
        `INSERT INTO files.job_chunks (job_id, chunk, size, emails, repeated)
         SELECT $1, $2::int + (c.n - 1)::int, c.s, string_to_array(c.e, E'\\n'), decode(c.r, 'base64')
           FROM ROWS FROM (json_to_recordset($3::json) AS (e text, s int, r text)) WITH ORDINALITY AS c(e, s, r, n)`,
        [jobId, first, JSON.stringify(batch)],
      );
    }
  }

  async view(jobId: string): Promise<JobRow> {
    const row = await this.tx.one<JobRow>(`SELECT * FROM files.jobs WHERE id = $1`, [jobId]);
    if (!row) throw new Error(`job ${jobId} vanished inside its own transaction`);
    return row;
  }
}
