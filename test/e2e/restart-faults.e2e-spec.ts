import { randomBytes } from 'node:crypto';
import {
  type Account,
  eventually,
  MailWorld,
  mailWorldEnv,
  NatsCluster,
  PrivatePostgres,
  TestSuite,
} from '@emailverify/testing';
import { isTerminalJobState, type JobState } from '@emailverify/contracts';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DOMAINS = 50;
const ADDRESSES = 20_000;
const REPEATED = 1_000;
/** Every 100th address is on a domain that does not exist: invalid, and charged like any verified address. */
const LOST = ADDRESSES / 100;

/**
 * A wide column beside each address: the upload and the result file are megabytes, so the merge, which reads
 * the one and stores the other while the job is verified, talks to NATS all along.
 */
const NOTE = 'n'.repeat(400);

/** 20,000 unique addresses, then the first 1,000 again. */
function jobRows(tag: string): string[] {
  const unique = Array.from({ length: ADDRESSES }, (_, i) =>
    i % 100 === 99 ? `${tag}${i}@gone.test` : `${tag}${i}@rs${i % DOMAINS}.test`,
  );
  return [...unique, ...unique.slice(0, REPEATED)];
}

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
    world = await MailWorld.start();
    for (let d = 0; d < DOMAINS; d++) {
      world.domain(`rs${d}.test`, {
        mx: [{ priority: 10, host: `mx.rs${d}.test`, smtp: { catchAll: true } }],
      });
    }
    world.domain('gone.test', { nxdomain: true });
    await world.ready();
    // A single nats-server of this file's own (JetStream, its own store), which the test may kill and restart.
    nats = await NatsCluster.start({ nodes: 1 });
    postgres = await PrivatePostgres.start();
    suite = await TestSuite.start({
      natsUrl: nats.url,
      databaseUrl: postgres.url,
      env: {
        ...mailWorldEnv(world),
        NATS_URL: nats.url,
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
    await world?.stop();
  });

  const balance = async (key: string): Promise<number> =>
    (await suite.call('/v1/credits', { key })).json.data.credits_balance as number;

  const processed = async (id: string): Promise<{ status: string; processed: number }> => {
    const [row] = await suite.sql<{ status: string; processed: number }>(
      `SELECT status, processed_emails AS processed FROM files.jobs WHERE id = $1`,
      [id],
    );
    return row!;
  };

  /** Waits until the job has verified at least a fifth of its addresses; fails when it finished before that. */
  const untilAFifthDone = async (id: string) => {
    const now = await eventually(
      async () => {
        const row = await processed(id);
        if (row.processed < ADDRESSES / 5 && !isTerminalJobState(row.status as JobState))
          throw new Error(`${row.processed} done, ${row.status}`);
        return row;
      },
      { timeoutMs: 240_000, intervalMs: 25 },
    );
    expect(now.status, 'the job finished before the fault').toMatch(/^(running|processing)$/);
  };

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

  /** The job completed with exact counts and charges, and its result file has every row in input order. */
  const completedExactly = async (id: string, rows: string[], before: number) => {
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
      risky_emails: 0,
      disposable_emails: 0,
      role_emails: 0,
      failed_chunks: 0,
      credits_used: ADDRESSES,
    });
    const [job] = await suite.sql<{ unique_emails: number; total_rows: number }>(
      `SELECT unique_emails, total_rows FROM files.jobs WHERE id = $1`,
      [id],
    );
    expect(job).toEqual({ unique_emails: ADDRESSES, total_rows: rows.length });
    expect(before - (await balance(account.apiKey))).toBe(ADDRESSES);
    const file = await suite.call(`/v1/verify/file/${id}/results`, { key: account.apiKey, style: 'legacy' });
    expect(file.status).toBe(200);
    const result = Papa.parse<string[]>(file.text.trimEnd()).data;
    expect(result).toHaveLength(rows.length + 1);
    // id, the original address, the note, then verify_email and status.
    expect(result.slice(1).map((r) => r[0])).toEqual(rows.map((_, i) => String(i)));
    expect(result.slice(1).map((r) => r[1])).toEqual(rows);
    expect(result.slice(1).every((r) => r[2] === NOTE)).toBe(true);
    const statuses = result.slice(1).map((r) => r[4]);
    expect(statuses.filter((s) => s === 'invalid')).toHaveLength(LOST + REPEATED / 100);
    expect(new Set(statuses)).toEqual(new Set(['valid', 'invalid']));
  };

  const upload = async (tag: string) => {
    const rows = jobRows(tag);
    const csv = `id,email,note\n${rows.map((e, i) => `${i},${e},${NOTE}`).join('\n')}\n`;
    const before = await balance(account.apiKey);
    const created = await suite.upload({ key: account.apiKey, file: { name: `${tag}.csv`, content: csv } });
    expect(created.status).toBe(200);
    expect(created.json.data).toMatchObject({ total_rows: rows.length, unique_emails: ADDRESSES });
    return { id: created.json.data.task_id as string, rows, before };
  };

  it(
    'a gateway killed -9 mid-upload leaves no job and no charge, and serves again once restarted',
    { timeout: 120_000 },
    async () => {
      const uploader = await suite.createAccount({ credits: 50_000 });
      const before = await balance(uploader.apiKey);
      // About 24 MiB: 20,000 addresses with a wide column beside each.
      const pad = 'x'.repeat(1_200);
      const rows = jobRows('up').map((e, i) => `${i},${e},${pad}\n`);
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
      const { id, rows, before } = await upload('nr');
      await untilAFifthDone(id);
      // Killed outright: whatever was waiting for an answer from it (a publish, a stored chunk) never gets one.
      await nats.stopNode(0, 'SIGKILL');
      const faultAt = Date.now();
      // Where the fault landed: nothing more is verified while NATS is away.
      const hit = await processed(id);
      expect(hit.status).toMatch(/^(running|processing)$/);
      expect(hit.processed).toBeGreaterThanOrEqual(ADDRESSES / 5);
      expect(hit.processed).toBeLessThanOrEqual((ADDRESSES * 3) / 5);
      // Down longer than a request's deadline (NATS_REQUEST_TIMEOUT_MS): what was in flight times out.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await nats.startNode(0);
      await answersAgain(faultAt, id);
      await completedExactly(id, rows, before);
    },
  );

  it(
    'PostgreSQL restarted (fast) at 20-60 %: the job completes exactly, charged once, every row in order',
    { timeout: 420_000 },
    async () => {
      const { id, rows, before } = await upload('pr');
      await untilAFifthDone(id);
      await postgres.stop();
      const faultAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await postgres.startAgain();
      // Where the fault landed: nothing was recorded while PostgreSQL was away.
      const hit = await processed(id);
      expect(hit.status).toMatch(/^(running|processing)$/);
      expect(hit.processed).toBeLessThanOrEqual((ADDRESSES * 3) / 5);
      await answersAgain(faultAt, id);
      await completedExactly(id, rows, before);
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
