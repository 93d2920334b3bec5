import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type AccountId, countChunkItems, type PackedChunkItem } from '@emailverify/contracts';
import { type Queryable, Sql } from '@emailverify/persistence';
import { addToJob, LateResult, type WaitingPlan } from '../jobs/chunks.repository';
import type { JobRow } from '../jobs/jobs.repository';
import { applyRetry, type WaitingAddress } from './retry-schedule';

/** Greylisted addresses of one chunk claimed for a retry, with what a chunk message needs of their job. */
export interface DueRetry {
  jobId: string;
  accountId: AccountId;
  chunk: number;
  checkSmtp: boolean;
  enrich: boolean;
  jobCreatedAt: Date;
  requestId: string | null;
  emails: string[];
  /** The claim: the retry's answer settles these addresses only if they still carry it. */
  claim: string;
}

/**
 * The SQL of greylisting retries (`files.greylist_retries`). A waiting address is a row due at a time; a dispatch
 * claims the due rows of running jobs (FOR UPDATE SKIP LOCKED: one replica each) and publishes them once the
 * claim is committed; a claim whose answer never came (its message or its process lost) is taken over once
 * FILE_CHUNK_STALE_SECONDS old, as a lost chunk is, and an answer to a claim taken over changes nothing.
 */
@Injectable()
export class GreylistRepository {
  constructor(private readonly sql: Sql) {}

  /** Records a chunk's greylisted addresses, each due after `delayMs`, in the transaction applying the chunk. */
  static waiting(
    jobId: string,
    chunk: number,
    results: readonly PackedChunkItem[],
    positions: readonly number[],
    delayMs: number,
  ): WaitingPlan {
    return {
      positions,
      schedule: async (tx: Queryable, waiting: readonly number[]) => {
        await tx.affected(
          `INSERT INTO files.greylist_retries (job_id, chunk, position, email, due_at)
           SELECT $1, $2, w.position, w.email, now() + make_interval(secs => $5::float8)
             FROM unnest($3::int[], $4::text[]) AS w(position, email)
           ON CONFLICT DO NOTHING`,
          [jobId, chunk, waiting, waiting.map((p) => results[p]![0]), delayMs / 1000],
        );
      },
    };
  }

  /**
   * Claims up to `limit` due retries of running jobs and hands them to `publish` grouped by chunk, once the claim
   * is committed (the answer, which may come back at once, must find it). A group whose publish fails is due
   * again at once; a process that dies before publishing leaves its claim to be taken over when stale. Returns
   * the addresses claimed.
   */
  async dispatchDue(
    limit: number,
    staleSeconds: number,
    publish: (retry: DueRetry) => Promise<void>,
  ): Promise<number> {
    const groups = await this.claimDue(limit, staleSeconds);
    let claimed = 0;
    for (const group of groups) {
      claimed += group.emails.length;
      try {
        await publish(group);
      } catch (err) {
        await this.sql.affected(
          `UPDATE files.greylist_retries SET claim = NULL, claimed_at = NULL, attempts = attempts - 1
            WHERE job_id = $1 AND chunk = $2 AND claim = $3`,
          [group.jobId, group.chunk, group.claim],
        );
        throw err;
      }
    }
    return claimed;
  }

  private async claimDue(limit: number, staleSeconds: number): Promise<DueRetry[]> {
    return this.sql.transaction(async (tx) => {
      const claim = randomUUID();
      const rows = await tx.rows<{ job_id: string; chunk: number; position: number; email: string }>(
        `UPDATE files.greylist_retries r
            SET claim = $1, claimed_at = now(), attempts = r.attempts + CASE WHEN r.claim IS NULL THEN 1 ELSE 0 END
           FROM (SELECT d.job_id, d.chunk, d.position FROM files.greylist_retries d
                   JOIN files.jobs j ON j.id = d.job_id AND j.status IN ('running', 'processing')
                  WHERE d.due_at <= now()
                    AND (d.claim IS NULL OR d.claimed_at < now() - make_interval(secs => $2::float8))
                  ORDER BY d.due_at LIMIT $3
                  FOR UPDATE OF d SKIP LOCKED) due
          WHERE r.job_id = due.job_id AND r.chunk = due.chunk AND r.position = due.position
         RETURNING r.job_id, r.chunk, r.position, r.email`,
        [claim, staleSeconds, limit],
      );
      if (rows.length === 0) return [];
      const jobs = new Map(
        (
          await tx.rows<
            Pick<JobRow, 'id' | 'account_id' | 'check_smtp' | 'enrich' | 'created_at' | 'request_id'>
          >(
            `SELECT id, account_id, check_smtp, enrich, created_at, request_id FROM files.jobs WHERE id = ANY($1::uuid[])`,
            [[...new Set(rows.map((r) => r.job_id))]],
          )
        ).map((j) => [j.id, j]),
      );
      const groups = new Map<string, DueRetry>();
      for (const row of rows.sort((a, b) => a.position - b.position)) {
        const job = jobs.get(row.job_id)!;
        const key = `${row.job_id}:${row.chunk}`;
        let group = groups.get(key);
        if (!group) {
          group = {
            jobId: job.id,
            accountId: job.account_id,
            chunk: row.chunk,
            checkSmtp: job.check_smtp,
            enrich: job.enrich,
            jobCreatedAt: job.created_at,
            requestId: job.request_id,
            emails: [],
            claim,
          };
          groups.set(key, group);
        }
        group.emails.push(row.email);
      }
      return [...groups.values()];
    });
  }

  /**
   * Applies the answer to a retry: addresses still greylisted wait for their next delay, the others settle into
   * their chunk's results and their job's counts (and the chunk is answered once none of its addresses waits).
   * Returns the job when something settled; undefined when nothing did, when the answer's claim is no longer
   * held (a duplicate, or an answer that came after its claim was taken over), or when the job was cancelled
   * or failed meanwhile (then nothing is kept).
   */
  async applyRetry(
    jobId: string,
    chunk: number,
    claim: string,
    answer: readonly PackedChunkItem[],
    failed: boolean,
    delays: readonly number[],
  ): Promise<JobRow | undefined> {
    try {
      return await this.sql.transaction(async (tx) => {
        const stored = await tx.one<{ results: string }>(
          `SELECT results FROM files.job_chunks WHERE job_id = $1 AND chunk = $2 AND status = 'waiting' FOR UPDATE`,
          [jobId, chunk],
        );
        if (!stored) return undefined;
        const claimed = await tx.rows<WaitingAddress>(
          `SELECT position, email, attempts FROM files.greylist_retries
            WHERE job_id = $1 AND chunk = $2 AND claim = $3 FOR UPDATE`,
          [jobId, chunk, claim],
        );
        if (claimed.length === 0) return undefined;
        const outcome = applyRetry(
          JSON.parse(stored.results) as PackedChunkItem[],
          claimed,
          answer,
          failed,
          delays,
        );
        if (outcome.again.length > 0) {
          await tx.affected(
            `UPDATE files.greylist_retries r
                SET claim = NULL, claimed_at = NULL, due_at = now() + make_interval(secs => a.secs)
               FROM unnest($3::int[], $4::float8[]) AS a(position, secs)
              WHERE r.job_id = $1 AND r.chunk = $2 AND r.position = a.position`,
            [jobId, chunk, outcome.again.map((a) => a.position), outcome.again.map((a) => a.delayMs / 1000)],
          );
        }
        if (outcome.settled.length === 0) return undefined;
        await tx.affected(
          `DELETE FROM files.greylist_retries WHERE job_id = $1 AND chunk = $2 AND position = ANY($3::int[])`,
          [jobId, chunk, outcome.settled.map((s) => s.position)],
        );
        const left = await tx.one<{ remaining: number }>(
          `SELECT count(*)::int AS remaining FROM files.greylist_retries WHERE job_id = $1 AND chunk = $2`,
          [jobId, chunk],
        );
        const answered = left!.remaining === 0;
        await tx.affected(
          `UPDATE files.job_chunks SET results = $3, credits_used = credits_used + $4,
                  status = CASE WHEN $5::boolean THEN 'done' ELSE status END, done_at = now()
            WHERE job_id = $1 AND chunk = $2`,
          [jobId, chunk, JSON.stringify(outcome.results), outcome.addedCredits, answered],
        );
        const job = await addToJob(tx, jobId, {
          settled: countChunkItems(outcome.settled.map((s) => s.item)),
          completedChunks: answered ? 1 : 0,
          failedChunks: 0,
          waiting: -outcome.settled.length,
        });
        if (!job) throw new LateResult();
        return job;
      });
    } catch (err) {
      if (err instanceof LateResult) return undefined;
      throw err;
    }
  }
}
