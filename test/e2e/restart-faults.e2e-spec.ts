import { randomBytes } from 'node:crypto';
import {
  type Account,
  eventually,
  type MailWorld,
  NatsCluster,
  PrivatePostgres,
  TestSuite,
} from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectCompletedExactly,
  FAULT_JOB_ADDRESSES as ADDRESSES,
  faultJobRows,
  faultJobWorld,
  jobProgress,
  untilAFifthDone,
  uploadFaultJob,
} from './fault-job';

/**
 * A wide column beside each address: the upload and the result file are megabytes, so the merge, which reads
 * the one and stores the other while the job is verified, talks to NATS all along.
 */
const NOTE = 'n'.repeat(400);

/**
 * The whole suite on a NATS server and a PostgreSQL server of its own, each restarted while a 20,000-address job
 * is between 20 % and 60 % done, and a gateway killed -9 in the middle of a large upload. The job still completes
 * with exact counts, each unique address is charged once, the result file has every row in input order, and
 * the API answers again within a minute; the killed upload leaves no job, no charge and, after the sweep of
 * partly stored objects, nothing stored.
 */
describe('NATS and PostgreSQL restarted mid-job, a gateway killed mid-upload', () => {
  let world: MailWorld;
  let nats: NatsCluster;
  let postgres: PrivatePostgres;
  let suite: TestSuite;
  let account: Account;
  /** When the killed upload left its partly stored object (the sweep removes it a minute later). */
  let uploadKilledAt = 0;

  beforeAll(async () => {
    world = await faultJobWorld('rs');
    // A single nats-server of this file's own (JetStream, its own store), which the test may kill and restart.
    nats = await NatsCluster.start({ nodes: 1 });
    postgres = await PrivatePostgres.start();
    suite = await TestSuite.start({
      world,
      natsUrl: nats.url,
      databaseUrl: postgres.url,
      env: {
        NATS_URL: nats.url,
        // Chunks of 100 (200 for the job): what is in flight at once (a window of FILE_CHUNKS_IN_FLIGHT chunks,
        // with results in file-jobs' hands still applied after NATS went away) stays a small part of the job,
        // so each fault lands between a fifth and three fifths of it.
        FILE_CHUNK_SIZE: '100',
        FILE_RECOVERY_INTERVAL_MS: '500',
        FILE_CHUNK_STALE_SECONDS: '5',
        FILE_CHUNK_ACK_WAIT_MS: '3000',
        FILE_RESULTS_ACK_WAIT_MS: '3000',
        FILE_MERGE_LEASE_SECONDS: '6',
        FILE_PARTIAL_OBJECT_MINUTES: '1',
      },
    });
    account = await suite.createAccount({ credits: 100_000 });
  }, 300_000);
  afterAll(async () => {
    await suite?.stop();
    await postgres?.destroy();
    await nats?.stop();
  });

  const balance = async (key: string): Promise<number> =>
    (await suite.call('/v1/credits', { key })).json.data.credits_balance as number;

  /**
   * The API answers again within a minute of the fault: credits, and the job's status (each service reconnects
   * on its own, so one may answer a moment before another).
   */
  const answersAgain = async (faultAt: number, jobId?: string) => {
    await eventually(
      async () => {
        const res = await suite.call('/v1/credits', { key: account.apiKey });
        expect(res.status).toBe(200);
        if (jobId) {
          const job = await suite.call(`/v1/verify/file/${jobId}`, { key: account.apiKey });
          expect(job.status).toBe(200);
        }
      },
      { timeoutMs: Math.max(1, faultAt + 60_000 - Date.now()), intervalMs: 250 },
    );
  };

  it(
    'a gateway killed -9 mid-upload leaves no job and no charge, and serves again once restarted',
    { timeout: 120_000 },
    async () => {
      const uploader = await suite.createAccount({ credits: 50_000 });
      const before = await balance(uploader.apiKey);
      // About 24 MiB: 20,000 addresses with a wide column beside each.
      const pad = 'x'.repeat(1_200);
      const rows = faultJobRows('rs', 'up').map((e, i) => `${i},${e},${pad}\n`);
      const boundary = `----fault${randomBytes(8).toString('hex')}`;
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nid,email,note\n`;
      const encoder = new TextEncoder();
      let sent = 0;
      let next = 0;
      // The body is sent as far as its middle, then held until the gateway is gone.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (next === 0 && sent === 0) {
            controller.enqueue(encoder.encode(head));
            sent += head.length;
          }
          if (next >= rows.length / 2) {
            await held;
            controller.error(new Error('the upload was cut off'));
            return;
          }
          const piece = rows.slice(next, next + 500).join('');
          next += 500;
          sent += piece.length;
          controller.enqueue(encoder.encode(piece));
        },
      });
      const partialBefore = await suite.partialObjects();
      const request = fetch(`${suite.gatewayUrl()}/v1/verify/file`, {
        method: 'POST',
        headers: {
          'SVC-API-KEY': uploader.apiKey,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
        },
        body,
        duplex: 'half',
      } as RequestInit).then(
        (res) => `answered ${res.status}`,
        () => 'cut off',
      );
      // The gateway is storing the upload: part of it is in the object store, which lists no object for it.
      await eventually(
        async () => {
          expect(next).toBeGreaterThanOrEqual(rows.length / 2);
          expect(await suite.partialObjects()).toBeGreaterThan(partialBefore);
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      await suite.stopGateway(0, 'SIGKILL');
      uploadKilledAt = Date.now();
      release();
      expect(await request).toBe('cut off');
      expect(sent).toBeGreaterThan(10_000_000);
      expect(await suite.partialObjects()).toBeGreaterThan(partialBefore);

      await suite.restartGateway(0);
      await answersAgain(uploadKilledAt);
      expect(await balance(uploader.apiKey)).toBe(before);
      const jobs = await suite.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM files.jobs WHERE account_id = $1`,
        [uploader.accountId],
      );
      expect(jobs).toEqual([{ n: 0 }]);
    },
  );

  it(
    'NATS killed and restarted at 20-60 %: the job completes exactly, charged once, every row in order',
    { timeout: 420_000 },
    async () => {
      const job = await uploadFaultJob(suite, account, { tag: 'rs', prefix: 'nr', note: NOTE });
      await untilAFifthDone(suite, job.id);
      // Killed outright: whatever was waiting for an answer from it (a publish, a stored chunk) never gets one.
      await nats.stopNode(0, 'SIGKILL');
      const faultAt = Date.now();
      // Where the fault landed: nothing more is verified while NATS is away.
      const hit = await jobProgress(suite, job.id);
      expect(hit.status).toMatch(/^(running|processing)$/);
      expect(hit.processed).toBeGreaterThanOrEqual(ADDRESSES / 5);
      expect(hit.processed).toBeLessThanOrEqual((ADDRESSES * 3) / 5);
      // Down longer than a request's deadline (NATS_REQUEST_TIMEOUT_MS): what was in flight times out.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await nats.startNode(0);
      await answersAgain(faultAt, job.id);
      await expectCompletedExactly(suite, account, job);
    },
  );

  it(
    'PostgreSQL restarted (fast) at 20-60 %: the job completes exactly, charged once, every row in order',
    { timeout: 420_000 },
    async () => {
      const job = await uploadFaultJob(suite, account, { tag: 'rs', prefix: 'pr', note: NOTE });
      await untilAFifthDone(suite, job.id);
      await postgres.stop();
      const faultAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await postgres.startAgain();
      // Where the fault landed: nothing was recorded while PostgreSQL was away.
      const hit = await jobProgress(suite, job.id);
      expect(hit.status).toMatch(/^(running|processing)$/);
      expect(hit.processed).toBeLessThanOrEqual((ADDRESSES * 3) / 5);
      await answersAgain(faultAt, job.id);
      await expectCompletedExactly(suite, account, job);
    },
  );

  it('the upload cut off by the gateway kill leaves nothing stored once the sweep has run', async () => {
    expect(uploadKilledAt).toBeGreaterThan(0);
    // FILE_PARTIAL_OBJECT_MINUTES=1: removed a minute after its last chunk, by a sweep every 15 s.
    await eventually(async () => expect(await suite.partialObjects()).toBe(0), {
      timeoutMs: Math.max(1, uploadKilledAt + 150_000 - Date.now()),
      intervalMs: 1_000,
    });
    // What is stored is the uploads and result files of the jobs, nothing of the upload that was cut off.
    const files = await suite.sql<{ upload_object: string; result_object: string }>(
      `SELECT upload_object, result_object FROM files.jobs`,
    );
    expect((await suite.storedObjects()).sort()).toEqual(
      files.flatMap((f) => [f.upload_object, f.result_object]).sort(),
    );
  }, 180_000);
});
