import { type Account, eventually, MailWorld, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DOMAINS = 20;
const ADDRESSES = 400;
const CHUNK_SIZE = 10;
const CHUNKS_IN_HAND = 4;

/**
 * SIGTERM, as a rolling deploy or a scale-down sends it: the process stops taking work and gives back what it
 * holds at once, so nothing waits for a timeout meant for crashed processes.
 */
describe('graceful shutdown on SIGTERM', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    // Slow mail servers: every chunk takes seconds, so each verifier always holds chunks while the job runs.
    for (let d = 0; d < DOMAINS; d++) {
      world.domain(`drain${d}.test`, {
        mx: [{ priority: 10, host: `mx.drain${d}.test`, smtp: { catchAll: true, delayMs: 200 } }],
      });
    }
    suite = await TestSuite.start({
      world,
      env: {
        SMTP_MAX_CONCURRENCY_PER_MX: '50',
        FILE_RECOVERY_INTERVAL_MS: '500',
        FILE_CHUNK_SIZE: String(CHUNK_SIZE),
        FILE_CHUNKS_IN_FLIGHT: '40',
        FILE_CHUNK_CONCURRENCY: String(CHUNKS_IN_HAND),
        // The longest ack wait there is: a chunk that came back only after it would outlast this suite's
        // timeouts, so the job completes only if the stopping verifier hands its chunks back itself.
        FILE_CHUNK_ACK_WAIT_MS: '600000',
      },
      services: ['credits', 'file-jobs', 'webhooks'],
      // file-jobs logs each request it answers, which tells when the long poll below is in the gateway's hands.
      appEnv: { 'file-jobs': { LOG_LEVEL: 'info' } },
      gateways: 2,
    });
    // Two verifiers; the first one says what it hands back, the second which chunks it verifies.
    await Promise.all([
      suite.startService('verifier', { LOG_LEVEL: 'info' }, 0),
      suite.startService('verifier', { LOG_LEVEL: 'info' }, 1),
    ]);
    account = await suite.createAccount({ credits: 10_000 });
  });
  afterAll(async () => suite?.stop());

  it(
    'a verifier stopped mid-job hands its chunks to the other at once; the job completes with exact counts',
    { timeout: 300_000 },
    async () => {
      const emails = Array.from({ length: ADDRESSES }, (_, i) => `user${i}@drain${i % DOMAINS}.test`);
      const before = (await suite.call('/v1/credits', { key: account.apiKey })).json.data
        .credits_balance as number;
      const created = await suite.upload({
        key: account.apiKey,
        file: { name: 'drain.txt', content: `${emails.join('\n')}\n` },
        fields: { check_smtp: 'true' },
      });
      expect(created.status).toBe(200);
      const id = created.json.data.task_id as string;
      const progress = async () =>
        (await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey })).json.data as {
          status: string;
          processed_emails: number;
          completed_chunks: number;
        };

      // Both verifiers at work.
      await eventually(
        async () => {
          const now = await progress();
          expect(now.processed_emails, now.status).toBeGreaterThanOrEqual(2 * CHUNK_SIZE);
        },
        { timeoutMs: 120_000, intervalMs: 100 },
      );
      // A long poll on the second gateway, which is stopped too: it answers at once with the current status.
      // The gateway holds it once it has read the job's status from file-jobs for it.
      const longPollId = `long-poll-${id}`;
      const longPoll = suite.call(`/v1/verify/file/${id}?timeout=300`, {
        key: account.apiKey,
        gateway: 1,
        headers: { 'X-Request-Id': longPollId },
      });
      const fileJobs = suite.processes.get('file-jobs')!;
      await eventually(() => expect(fileJobs.output.join('')).toContain(`"requestId":"${longPollId}"`), {
        timeoutMs: 60_000,
      });

      // The gateway and the first verifier get SIGTERM together while far more chunks are left than both
      // verifiers hold, so the stopping one holds some whatever the machine's pace.
      const atStop = await progress();
      expect(atStop.status).toBe('processing');
      expect(ADDRESSES / CHUNK_SIZE - atStop.completed_chunks).toBeGreaterThan(3 * CHUNKS_IN_HAND);
      const gateway = suite.processes.get('gateway1')!;
      const victim = suite.processes.get('verifier')!;
      gateway.child.kill('SIGTERM');
      const verifierStopped = suite.stopService('verifier', 'SIGTERM', 0);
      const answered = await longPoll;
      expect(answered.status).toBe(200);
      expect(answered.json.data.task_id).toBe(id);
      expect(answered.json.data.status).toBe('processing');
      await gateway.exited;
      await verifierStopped;
      // It finished its shutdown (the harness kills what is still running 15 s after SIGTERM).
      expect(victim.child.signalCode).not.toBe('SIGKILL');
      const handedBack = /"chunks":(\d+)[^\n]*handed back to the queue/.exec(victim.output.join(''));
      expect(
        handedBack,
        `exit ${victim.child.exitCode ?? victim.child.signalCode}:\n${victim.output.join('').slice(-3000)}`,
      ).not.toBeNull();
      expect(Number(handedBack![1])).toBeGreaterThan(0);

      // The other verifier gets the chunks handed back at once: they come to it a second time, ten minutes before
      // their ack wait would have brought them back (nothing else is delivered twice). It verifies them after the
      // chunks it holds already, which on a busy machine takes a while.
      const other = suite.processes.get('verifier#1')!;
      const redelivered = () =>
        new Set(
          [
            ...other.output
              .join('')
              .matchAll(/"chunk":(\d+),"addresses":\d+,"deliveryCount":(\d+)[^\n]*"chunk verified"/g),
          ]
            .filter((m) => Number(m[2]) > 1)
            .map((m) => m[1]),
        ).size;
      await eventually(() => expect(redelivered()).toBeGreaterThanOrEqual(Number(handedBack![1])), {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      // The job completes with every address counted once.
      const done: Record<string, unknown> = await suite.finishedJob(id, account.apiKey, {
        timeoutMs: 240_000,
      });
      expect(done).toMatchObject({
        status: 'completed',
        total_emails: ADDRESSES,
        processed_emails: ADDRESSES,
        catchall_emails: ADDRESSES,
        valid_emails: 0,
        invalid_emails: 0,
        unknown_emails: 0,
        completed_chunks: ADDRESSES / CHUNK_SIZE,
        failed_chunks: 0,
        credits_used: ADDRESSES,
      });
      const after = (await suite.call('/v1/credits', { key: account.apiKey })).json.data
        .credits_balance as number;
      expect(before - after).toBe(ADDRESSES);
    },
  );
});
