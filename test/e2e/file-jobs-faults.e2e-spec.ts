import { type Account, type ServiceName, MailWorld, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectCompletedExactly,
  FAULT_JOB_ADDRESSES as ADDRESSES,
  faultJobWorld,
  jobProgress,
  untilAFifthDone,
  uploadFaultJob,
} from './fault-job';

/**
 * kill -9 of a service half-way through a 20,000-address job, then a restart: the job still completes, every
 * count is exact, each unique address is charged once and no row is missing from the result file.
 */
describe.each<ServiceName>(['verifier', 'file-jobs'])('a %s killed half-way through a job', (victim) => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await faultJobWorld('crash');
    suite = await TestSuite.start({
      world,
      env: {
        FILE_RECOVERY_INTERVAL_MS: '500',
        // Small chunks, two at a time: the job takes long enough for the kill to land in the middle of it.
        FILE_CHUNK_SIZE: '50',
        FILE_CHUNKS_IN_FLIGHT: '2',
        // What the killed process held comes back to the others after this long.
        FILE_CHUNK_ACK_WAIT_MS: '3000',
        FILE_RESULTS_ACK_WAIT_MS: '3000',
        // A merge the killed file-jobs process held is taken over after this long.
        FILE_MERGE_LEASE_SECONDS: '5',
      },
    });
    account = await suite.createAccount({ credits: 50_000 });
  });
  afterAll(async () => suite?.stop());

  it(
    'completes with exact counts, one charge per unique address, and every row',
    { timeout: 600_000 },
    async () => {
      const job = await uploadFaultJob(suite, account, { tag: 'crash', prefix: 'user', note: '' });
      // Wait until a good part of the job is done, then kill the victim without warning.
      await untilAFifthDone(suite, job.id);
      await suite.stopService(victim, 'SIGKILL');
      // The kill landed while the job was in flight: neither finished nor (with no verifier, or no file-jobs
      // to record results) able to finish meanwhile.
      const hit = await jobProgress(suite, job.id);
      expect(hit.status).toMatch(/^(running|processing)$/);
      expect(hit.processed).toBeGreaterThanOrEqual(ADDRESSES / 5);
      expect(hit.processed).toBeLessThan(ADDRESSES);
      await suite.startService(victim);

      await expectCompletedExactly(suite, account, job, 300_000);
      const [stored] = await suite.sql<{ n: number; verified: number }>(
        `SELECT sum(cardinality(emails))::int AS n, sum(COALESCE(json_array_length(results::json), 0))::int AS verified
           FROM files.job_chunks WHERE job_id = $1`,
        [job.id],
      );
      expect(stored).toEqual({ n: ADDRESSES, verified: ADDRESSES });
    },
  );
});
