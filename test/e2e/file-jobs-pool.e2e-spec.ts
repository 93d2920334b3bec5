import { type Account, MailWorld, TestSuite } from '@emailverify/testing';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const JOBS = 12;
const ROWS = 30;

/**
 * A burst of small jobs on one file-jobs process whose pool has ten connections: every merge uses the pool one
 * query at a time and at most FILE_MERGE_CONCURRENCY run at once, so the twelve jobs all complete instead of
 * their merges taking every connection and waiting for one more.
 */
describe('twelve small jobs at once on one file-jobs process with a pool of ten', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    // Each job's first two chunks are on a quick mail host, its last on a slow one, and the verifier works on
    // every chunk at once: all twelve jobs have chunks answered and one outstanding at the same time, so their
    // merges (which start following a job once its pace says it is nearly done) overlap.
    const mailboxes = Array.from({ length: ROWS }, (_, i) => `user${i}`);
    for (let j = 0; j < JOBS; j++) {
      world.domain(`quick${j}.test`, {
        mx: [{ priority: 10, host: `mx.quick${j}.test`, smtp: { mailboxes } }],
      });
      world.domain(`slow${j}.test`, {
        mx: [{ priority: 10, host: `mx.slow${j}.test`, smtp: { mailboxes, delayMs: 300 } }],
      });
    }
    suite = await TestSuite.start({
      world,
      env: {
        FILE_CHUNK_SIZE: '10',
        FILE_RECOVERY_INTERVAL_MS: '500',
        SMTP_SEMAPHORE_TIMEOUT_MS: '120000',
      },
      appEnv: {
        'file-jobs': { DATABASE_POOL_SIZE: '10', DATABASE_POOL_TIMEOUT_MS: '10000' },
        verifier: { FILE_CHUNK_CONCURRENCY: '50' },
      },
    });
    account = await suite.createAccount({ credits: JOBS * ROWS });
  });
  afterAll(async () => suite?.stop());

  it('all complete, each with its own rows and charges', { timeout: 180_000 }, async () => {
    const files = Array.from({ length: JOBS }, (_, j) =>
      Array.from({ length: ROWS }, (_, i) => `user${i}@${i < 20 ? 'quick' : 'slow'}${j}.test`),
    );
    const created = await Promise.all(
      files.map((rows, j) =>
        suite.upload({
          key: account.apiKey,
          file: { name: `burst${j}.csv`, content: `email\n${rows.join('\n')}\n` },
          fields: { check_smtp: 'true' },
        }),
      ),
    );
    expect(created.map((c) => c.status)).toEqual(files.map(() => 200));
    const done = await Promise.all(
      created.map((c) =>
        suite.finishedJob(c.json.data.task_id as string, account.apiKey, { timeoutMs: 150_000 }),
      ),
    );
    for (const job of done)
      expect(job).toMatchObject({
        status: 'completed',
        total_emails: ROWS,
        processed_emails: ROWS,
        valid_emails: ROWS,
        credits_used: ROWS,
      });
    const balance = (await suite.call('/v1/credits', { key: account.apiKey })).json.data.credits_balance;
    expect(balance).toBe(0);
    for (const [j, c] of created.entries()) {
      const file = await suite.call(`/v1/verify/file/${c.json.data.task_id}/results`, {
        key: account.apiKey,
        style: 'legacy',
      });
      const rows = Papa.parse<string[]>(file.text.trimEnd()).data.slice(1);
      expect(rows.map((r) => [r[0], r[2]])).toEqual(files[j]!.map((email) => [email, 'valid']));
    }
  });
});
