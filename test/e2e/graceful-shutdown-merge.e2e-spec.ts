import { type Account, eventually, type MailWorld, TestSuite } from '@emailverify/testing';
import { isTerminalJobState, type JobState } from '@emailverify/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompletedExactly, faultJobWorld, uploadFaultJob } from './fault-job';

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
    world = await faultJobWorld('mg');
    suite = await TestSuite.start({
      world,
      env: {
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
  afterAll(async () => suite?.stop());

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
      const job = await uploadFaultJob(suite, account, { tag: 'mg', prefix: 'merge', note: NOTE });
      const id = job.id;

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
      await expectCompletedExactly(suite, account, job);
      // One result file, stored once.
      expect((await suite.storedObjects()).sort()).toEqual([left.upload_object, `results/${id}.csv`].sort());
    },
  );
});
