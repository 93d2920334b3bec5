import { type Account, eventually, MailWorld, TestSuite } from '@emailverify/testing';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** GREYLIST_RETRY_DELAYS of the suite: two retries, after 1 s and after 2 more. */
const DELAYS_MS = [1000, 2000];
/**
 * Greylisting retried inside file jobs, against the mail world: `greylisted.test` greylists like postgrey (a new
 * client/sender/recipient triplet is refused with 450 4.2.0 until a short delay has passed), `grey.test` greylists
 * forever, `plain.test` answers at once. That a paused or cancelled job sends no retry is asserted in
 * apps/file-jobs/src/greylist/greylist.repository.int-spec.ts: only the retries of running jobs come due.
 */
describe('file jobs retry greylisted addresses', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('greylisted.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.greylisted.test',
            smtp: { mailboxes: ['jane', 'joe', 'ann', 'ivy'], greylist: { delayMs: 1500 } },
          },
        ],
      })
      .domain('grey.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.grey.test',
            smtp: { rcptReply: { code: 450, text: '4.2.0 Greylisted, please try again later' } },
          },
        ],
      })
      .domain('plain.test', {
        mx: [{ priority: 10, host: 'mx.plain.test', smtp: { mailboxes: ['jane', 'joe', 'ann', 'ivy'] } }],
      });
    suite = await TestSuite.start({
      world,
      env: {
        GREYLIST_RETRY_DELAYS: DELAYS_MS.map((ms) => `${ms / 1000}s`).join(','),
        FILE_RECOVERY_INTERVAL_MS: '200',
        // Two addresses a chunk: a chunk whose addresses wait sits among answered ones (and an early merge).
        FILE_CHUNK_SIZE: '2',
        // A verifier killed while holding a retry hands it over soon.
        FILE_CHUNK_ACK_WAIT_MS: '5000',
      },
    });
    account = await suite.createAccount({ credits: 1000 });
  });

  afterAll(async () => suite?.stop());

  const balance = async () =>
    (await suite.call('/v1/credits', { key: account.apiKey })).json.data.credits_balance as number;
  const status = async (id: string) =>
    (await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey })).json.data as Record<string, unknown>;
  /** RCPT commands the mail world received for one address. */
  const rcpts = (host: string, email: string) =>
    world.smtpTranscript(host).filter((line) => line.toUpperCase() === `RCPT TO:<${email.toUpperCase()}>`)
      .length;

  async function upload(emails: string[]): Promise<string> {
    const res = await suite.upload({
      key: account.apiKey,
      file: { name: 'leads.csv', content: `email\n${emails.join('\n')}\n` },
      fields: { check_smtp: 'true' },
    });
    expect(res.status).toBe(200);
    return res.json.data.task_id as string;
  }

  async function verdicts(id: string): Promise<Record<string, string>> {
    // The results endpoint redirects to the signed link.
    const res = await suite.call(`/v1/verify/file/${id}/results`, { key: account.apiKey });
    expect(res.status).toBe(307);
    const file = await fetch(res.headers.get('location')!);
    expect(file.status).toBe(200);
    const rows = Papa.parse<Record<string, string>>((await file.text()).trimEnd(), { header: true }).data;
    return Object.fromEntries(rows.map((r) => [r.email!, `${r.status} ${r.reason}`]));
  }

  /**
   * Waits until the job reports addresses waiting for a retry (and, with `answered`, every address answered once:
   * processed or waiting), and returns that status.
   */
  const whileWaiting = (id: string, answered?: number) =>
    eventually(
      async () => {
        const s = await status(id);
        expect(s.waiting_emails).toBeGreaterThan(0);
        if (answered !== undefined)
          expect(Number(s.processed_emails) + Number(s.waiting_emails)).toBe(answered);
        return s;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );

  it('retries inside the job: the greylisted address ends valid, the forever-greylisted one unknown and free', async () => {
    const before = await balance();
    const id = await upload([
      'jane@greylisted.test',
      'anyone@grey.test',
      'jane@plain.test',
      'ghost@plain.test',
    ]);

    // While addresses wait, they are neither processed nor counted, and the job is not done.
    const waiting = await whileWaiting(id, 4);
    expect(['running', 'processing']).toContain(waiting.status);
    expect(waiting.progress).toBe(Math.floor((Number(waiting.processed_emails) / 4) * 100));
    expect(waiting.progress).toBeLessThan(100);
    expect(waiting.total_emails).toBe(4);

    const done = await suite.finishedJob(id, account.apiKey);
    expect(done).toMatchObject({
      status: 'completed',
      progress: 100,
      total_emails: 4,
      processed_emails: 4,
      waiting_emails: 0,
      valid_emails: 2,
      invalid_emails: 1,
      unknown_emails: 1,
      completed_chunks: 2,
      // The address accepted at a retry is charged like any fresh result; the one never accepted is free.
      credits_used: 3,
    });
    expect(await balance()).toBe(before - 3);
    expect(await verdicts(id)).toEqual({
      'jane@greylisted.test': 'valid accepted',
      'anyone@grey.test': 'unknown greylisted',
      'jane@plain.test': 'valid accepted',
      'ghost@plain.test': 'invalid mailbox_not_found',
    });
    // The forever-greylisted address was asked once and then after each delay; the answered one never again.
    expect(rcpts('mx.grey.test', 'anyone@grey.test')).toBe(1 + DELAYS_MS.length);
    expect(rcpts('mx.plain.test', 'jane@plain.test')).toBe(1);
    expect(rcpts('mx.greylisted.test', 'jane@greylisted.test')).toBeGreaterThanOrEqual(2);
  });

  it('keeps the waiting retries through file-jobs and verifier killed (kill -9) and started again', async () => {
    const before = await balance();
    const id = await upload(['ivy@greylisted.test', 'restart@grey.test', 'ivy@plain.test']);
    await whileWaiting(id);
    await suite.stopService('file-jobs', 'SIGKILL');
    await suite.stopService('verifier', 'SIGKILL');
    await Promise.all([suite.startService('verifier'), suite.startService('file-jobs')]);
    const done = await suite.finishedJob(id, account.apiKey);
    expect(done).toMatchObject({
      status: 'completed',
      processed_emails: 3,
      waiting_emails: 0,
      valid_emails: 2,
      unknown_emails: 1,
      credits_used: 2,
    });
    expect(await balance()).toBe(before - 2);
    expect(await verdicts(id)).toEqual({
      'ivy@greylisted.test': 'valid accepted',
      'restart@grey.test': 'unknown greylisted',
      'ivy@plain.test': 'valid accepted',
    });
  });
});
