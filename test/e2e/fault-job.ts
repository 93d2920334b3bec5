import { type Account, eventually, MailWorld, type TestSuite } from '@emailverify/testing';
import { isTerminalJobState, type JobState } from '@emailverify/contracts';
import Papa from 'papaparse';
import { expect } from 'vitest';

/**
 * The job the fault tests run: 20,000 unique addresses on catch-all domains (valid without an SMTP probe), every
 * 100th on a domain that does not exist (invalid, charged like any verified address), then the first 1,000
 * rows again. A process is stopped, killed or cut off from NATS or PostgreSQL while it runs.
 */
export const FAULT_JOB_ADDRESSES = 20_000;
const DOMAINS = 50;
const REPEATED = 1_000;
const LOST = FAULT_JOB_ADDRESSES / 100;

/** A mail world for fault jobs (a TestSuite given it waits until it answers): catch-all domains `<tag>0.test` to `<tag>49.test`, and gone.test, which is not. */
export async function faultJobWorld(tag: string): Promise<MailWorld> {
  const world = await MailWorld.start();
  for (let d = 0; d < DOMAINS; d++) {
    world.domain(`${tag}${d}.test`, {
      mx: [{ priority: 10, host: `mx.${tag}${d}.test`, smtp: { catchAll: true } }],
    });
  }
  world.domain('gone.test', { nxdomain: true });
  return world;
}

/** The job's addresses in row order, local parts starting with `prefix`, on the world's domains `tag`. */
export function faultJobRows(tag: string, prefix: string): string[] {
  const unique = Array.from({ length: FAULT_JOB_ADDRESSES }, (_, i) =>
    i % 100 === 99 ? `${prefix}${i}@gone.test` : `${prefix}${i}@${tag}${i % DOMAINS}.test`,
  );
  return [...unique, ...unique.slice(0, REPEATED)];
}

export interface FaultJob {
  id: string;
  rows: string[];
  /** The note beside every address (a wide one makes the files megabytes). */
  note: string;
  /** The account's balance before the upload. */
  before: number;
}

const balance = async (suite: TestSuite, account: Account): Promise<number> =>
  (await suite.call('/v1/credits', { key: account.apiKey })).json.data.credits_balance as number;

/** Uploads the job as `id,email,note` rows. */
export async function uploadFaultJob(
  suite: TestSuite,
  account: Account,
  { tag, prefix, note }: { tag: string; prefix: string; note: string },
): Promise<FaultJob> {
  const rows = faultJobRows(tag, prefix);
  const csv = `id,email,note\n${rows.map((e, i) => `${i},${e},${note}`).join('\n')}\n`;
  const before = await balance(suite, account);
  const created = await suite.upload({ key: account.apiKey, file: { name: `${prefix}.csv`, content: csv } });
  expect(created.status).toBe(200);
  expect(created.json.data).toMatchObject({ total_rows: rows.length, unique_emails: FAULT_JOB_ADDRESSES });
  return { id: created.json.data.task_id as string, rows, note, before };
}

/** The job's state and verified addresses, from the database (whichever service is away). */
export async function jobProgress(
  suite: TestSuite,
  id: string,
): Promise<{ status: string; processed: number }> {
  const [row] = await suite.sql<{ status: string; processed: number }>(
    `SELECT status, processed_emails AS processed FROM files.jobs WHERE id = $1`,
    [id],
  );
  return row!;
}

/** Waits until the job has verified at least a fifth of its addresses; fails when it finished before that. */
export async function untilAFifthDone(suite: TestSuite, id: string): Promise<void> {
  const now = await eventually(
    async () => {
      const row = await jobProgress(suite, id);
      if (row.processed < FAULT_JOB_ADDRESSES / 5 && !isTerminalJobState(row.status as JobState))
        throw new Error(`${row.processed} done, ${row.status}`);
      return row;
    },
    { timeoutMs: 240_000, intervalMs: 25 },
  );
  expect(now.status, 'the job finished before the fault').toMatch(/^(running|processing)$/);
}

/**
 * The job completed with exact counts (total, unique, per status), each unique address charged once, and a
 * result file with every row in input order.
 */
export async function expectCompletedExactly(
  suite: TestSuite,
  account: Account,
  job: FaultJob,
  timeoutMs = 240_000,
): Promise<void> {
  const done: Record<string, number | string> = await suite.finishedJob(job.id, account.apiKey, {
    timeoutMs,
  });
  expect(done).toMatchObject({
    status: 'completed',
    total_emails: FAULT_JOB_ADDRESSES,
    processed_emails: FAULT_JOB_ADDRESSES,
    // MX-only: a catch-all domain is not probed, so its addresses are valid.
    valid_emails: FAULT_JOB_ADDRESSES - LOST,
    invalid_emails: LOST,
    catchall_emails: 0,
    unknown_emails: 0,
    risky_emails: 0,
    disposable_emails: 0,
    role_emails: 0,
    failed_chunks: 0,
    credits_used: FAULT_JOB_ADDRESSES,
  });
  const [stored] = await suite.sql<{ unique_emails: number; total_rows: number }>(
    `SELECT unique_emails, total_rows FROM files.jobs WHERE id = $1`,
    [job.id],
  );
  expect(stored).toEqual({ unique_emails: FAULT_JOB_ADDRESSES, total_rows: job.rows.length });
  expect(job.before - (await balance(suite, account))).toBe(FAULT_JOB_ADDRESSES);
  const file = await suite.call(`/v1/verify/file/${job.id}/results`, {
    key: account.apiKey,
    style: 'legacy',
  });
  expect(file.status).toBe(200);
  const result = Papa.parse<string[]>(file.text.trimEnd()).data;
  expect(result).toHaveLength(job.rows.length + 1);
  // id, the original address, the note, then verify_email and status.
  expect(result.slice(1).map((r) => r[0])).toEqual(job.rows.map((_, i) => String(i)));
  expect(result.slice(1).map((r) => r[1])).toEqual(job.rows);
  expect(result.slice(1).every((r) => r[2] === job.note)).toBe(true);
  const statuses = result.slice(1).map((r) => r[4]);
  expect(statuses.filter((s) => s === 'invalid')).toHaveLength(LOST + REPEATED / 100);
  expect(new Set(statuses)).toEqual(new Set(['valid', 'invalid']));
}
