import { type Account, MailWorld, mailWorldEnv, TestSuite, eventually } from '@emailverify/testing';
import { isTerminalJobState, type JobState } from '@emailverify/contracts';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DOMAINS = 50;
const ADDRESSES = 20_000;
const REPEATED = 1_000;
/** Every 100th address is on a domain that does not exist: invalid, and charged like any verified address. */
const LOST = ADDRESSES / 100;
/** A wide column beside each address: the result file is about 20 MiB, so writing it takes a while. */
const NOTE = 'n'.repeat(1_000);

/**
 * SIGTERM to file-jobs while it writes a job's result file, as a rolling deploy sends it: the merge gives up
 * storing nothing and releases its hold on the job at once, and file-jobs started again merges the job from the
 * start. The job completes with exact counts, charged once, every row in input order.
 */
describe('file-jobs stopped (SIGTERM) in the middle of a merge', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    for (let d = 0; d < DOMAINS; d++) {
      world.domain(`mg${d}.test`, {
        mx: [{ priority: 10, host: `mx.mg${d}.test`, smtp: { catchAll: true } }],
      });
    }
    world.domain('gone.test', { nxdomain: true });
    await world.ready();
    suite = await TestSuite.start({
      env: {
        ...mailWorldEnv(world),
        FILE_RECOVERY_INTERVAL_MS: '500',
        // No merge while the job is verified: the whole result file is written once every chunk is answered.
        FILE_EARLY_MERGE_SECONDS: '0',
        // The longest merge lease there is: a lease left behind would outlast this test, so the job completes
        // only if the stopping process released it itself.
        FILE_MERGE_LEASE_SECONDS: '3600',
      },
    });
    account = await suite.createAccount({ credits: 50_000 });
  }, 300_000);
  afterAll(async () => {
    await suite?.stop();
    await world?.stop();
  });

  const balance = async (): Promise<number> =>
    (await suite.call('/v1/credits', { key: account.apiKey })).json.data.credits_balance as number;

  const jobRow = async (id: string) =>
    (
      await suite.sql<{
        status: string;
        merge_owner: string | null;
        result_object: string | null;
        upload_object: string;
      }>(`SELECT status, merge_owner, result_object, upload_object FROM files.jobs WHERE id = $1`, [id])
    )[0]!;

  it(
    'gives the merge up storing nothing; file-jobs started again completes the job exactly',
    { timeout: 420_000 },
    async () => {
      const unique = Array.from({ length: ADDRESSES }, (_, i) =>
        i % 100 === 99 ? `lost${i}@gone.test` : `user${i}@mg${i % DOMAINS}.test`,
      );
      const rows = [...unique, ...unique.slice(0, REPEATED)];
      const csv = `id,email,note\n${rows.map((e, i) => `${i},${e},${NOTE}`).join('\n')}\n`;
      const before = await balance();
      const created = await suite.upload({ key: account.apiKey, file: { name: 'merge.csv', content: csv } });
      expect(created.status).toBe(200);
      expect(created.json.data).toMatchObject({ total_rows: rows.length, unique_emails: ADDRESSES });
      const id = created.json.data.task_id as string;

      // Every chunk answered, the result file being written under the merge's lease.
      const merging = await eventually(
        async () => {
          const row = await jobRow(id);
          if (row.status !== 'merging' && !isTerminalJobState(row.status as JobState))
            throw new Error(`the job is ${row.status}`);
          return row;
        },
        { timeoutMs: 300_000, intervalMs: 25 },
      );
      expect(merging.status, 'the job finished before the stop').toBe('merging');
      expect(merging.merge_owner).not.toBeNull();

      const fileJobs = suite.processes.get('file-jobs')!;
      await suite.stopService('file-jobs', 'SIGTERM');
      // It finished its shutdown (the harness kills what is still running 15 s after SIGTERM).
      expect(fileJobs.child.signalCode, fileJobs.output.join('').slice(-3000)).not.toBe('SIGKILL');
      // The stop landed mid-merge: the merge was given up, nothing of the result file is stored (not even in
      // part) and the lease is free for whoever merges next.
      expect(fileJobs.output.join('')).toContain('merging interrupted');
      const left = await jobRow(id);
      expect(left).toMatchObject({ status: 'merging', merge_owner: null, result_object: null });
      expect(await suite.storedObjects()).toEqual([left.upload_object]);
      expect(await suite.partialObjects()).toBe(0);

      await suite.startService('file-jobs');
      const done: Record<string, number | string> = await suite.finishedJob(id, account.apiKey, {
        timeoutMs: 240_000,
      });
      expect(done).toMatchObject({
        status: 'completed',
        total_emails: ADDRESSES,
        processed_emails: ADDRESSES,
        // MX-only: a catch-all domain is not probed, so its addresses are valid.
        valid_emails: ADDRESSES - LOST,
        invalid_emails: LOST,
        catchall_emails: 0,
        unknown_emails: 0,
        failed_chunks: 0,
        credits_used: ADDRESSES,
      });
      expect(before - (await balance())).toBe(ADDRESSES);
      const file = await suite.call(`/v1/verify/file/${id}/results`, {
        key: account.apiKey,
        style: 'legacy',
      });
      expect(file.status).toBe(200);
      const result = Papa.parse<string[]>(file.text.trimEnd()).data;
      expect(result).toHaveLength(rows.length + 1);
      // id, the original address, the note, then verify_email and status.
      expect(result.slice(1).map((r) => r[0])).toEqual(rows.map((_, i) => String(i)));
      expect(result.slice(1).map((r) => r[1])).toEqual(rows);
      expect(result.slice(1).every((r) => r[2] === NOTE)).toBe(true);
      const statuses = result.slice(1).map((r) => r[4]);
      expect(statuses.filter((s) => s === 'invalid')).toHaveLength(LOST + REPEATED / 100);
      // One result file, stored once.
      expect((await suite.storedObjects()).sort()).toEqual([left.upload_object, `results/${id}.csv`].sort());
    },
  );
});
