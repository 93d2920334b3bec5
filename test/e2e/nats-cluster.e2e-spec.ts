import { isTerminalJobState, type JobState, Streams } from '@emailverify/contracts';
import { JetStreamKit } from '@emailverify/messaging';
import { type Account, eventually, MailWorld, NatsCluster, TestSuite } from '@emailverify/testing';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DOMAINS = 20;
const ADDRESSES = 3_000;
const REPEATED = 300;

/** user<i> exists on its domain unless i is a multiple of 3 (then RCPT gets 550 5.1.1). */
const exists = (i: number) => i % 3 !== 0;

/**
 * The suite on a three-node JetStream cluster with NATS_STREAM_REPLICAS=3: the node leading the chunk queue is
 * killed while a file job is in flight, the apps carry on with the two nodes left, and the job completes with
 * exact counts and charges and every row.
 */
describe('a three-node NATS cluster losing a node mid-job', () => {
  let cluster: NatsCluster;
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    cluster = await NatsCluster.start({ nodes: 3 });
    world = await MailWorld.start();
    for (let d = 0; d < DOMAINS; d++) {
      const mailboxes: string[] = [];
      for (let i = d; i < ADDRESSES; i += DOMAINS) if (exists(i)) mailboxes.push(`user${i}`);
      // A slow server keeps the job running long enough to take a node away in the middle of it.
      world.domain(`cl${d}.test`, {
        mx: [{ priority: 10, host: `mx.cl${d}.test`, smtp: { mailboxes, delayMs: 40 } }],
      });
    }
    suite = await TestSuite.start({
      world,
      natsUrl: cluster.url,
      env: {
        NATS_URL: cluster.url,
        NATS_STREAM_REPLICAS: '3',
        SMTP_MAX_CONCURRENCY_PER_MX: '50',
        SMTP_SEMAPHORE_TIMEOUT_MS: '600000',
        FILE_CHUNK_SIZE: '25',
        FILE_RECOVERY_INTERVAL_MS: '500',
        // Work held by a connection that went down with the node comes back to the others after this long.
        FILE_CHUNK_ACK_WAIT_MS: '5000',
        FILE_RESULTS_ACK_WAIT_MS: '5000',
      },
    });
    account = await suite.createAccount({ credits: 10_000 });
  });
  afterAll(async () => {
    await suite?.stop();
    await cluster?.stop();
  });

  it(
    'completes with exact counts, one charge per unique address and every row',
    { timeout: 900_000 },
    async () => {
      const unique = Array.from({ length: ADDRESSES }, (_, i) => `user${i}@cl${i % DOMAINS}.test`);
      const rows = [...unique, ...unique.slice(0, REPEATED)];
      const csv = `id,email\n${rows.map((e, i) => `${i},${e}`).join('\n')}\n`;
      const valid = unique.filter((_, i) => exists(i)).length;
      const before = (await suite.call('/v1/credits', { key: account.apiKey })).json.data
        .credits_balance as number;

      const created = await suite.upload({
        key: account.apiKey,
        file: { name: 'cluster.csv', content: csv },
        fields: { check_smtp: 'true' },
      });
      expect(created.status).toBe(200);
      expect(created.json.data).toMatchObject({ total_rows: rows.length, unique_emails: ADDRESSES });
      const id = created.json.data.task_id as string;

      // Every stream (and the object store) the installation made has three replicas.
      const kit = new JetStreamKit(suite.bus);
      const jsm = await kit.jsm();
      const chunkStream = kit.streamName(Streams.verifyChunks.name);
      for (const name of [
        chunkStream,
        kit.streamName(Streams.chunkResults.name),
        `OBJ_${kit.streamName('files')}`,
      ])
        expect((await jsm.streams.info(name)).config.num_replicas).toBe(3);

      // Once part of the job is done, and with chunks still queued, kill the node leading the chunk queue.
      const atStop = await eventually(
        async () => {
          const data = (await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey })).json.data;
          if (data.processed_emails < ADDRESSES / 5 && !isTerminalJobState(data.status))
            throw new Error(`${data.processed_emails} addresses done so far`);
          return {
            status: data.status as JobState,
            completed: data.completed_chunks as number,
            total: data.total_chunks as number,
            processed: data.processed_emails as number,
            queued: (await jsm.streams.info(chunkStream)).state.messages,
          };
        },
        { timeoutMs: 300_000 },
      );
      const leader = (await jsm.streams.info(chunkStream)).cluster?.leader;
      expect(leader).toMatch(/^n[123]$/);
      const victim = cluster.nodes.findIndex((n) => n.name === leader);
      await cluster.stopNode(victim, 'SIGKILL');
      // The job was in flight when the node went: not finished, chunks not all done, chunks queued in NATS.
      expect(isTerminalJobState(atStop.status)).toBe(false);
      expect(atStop.completed).toBeLessThan(atStop.total);
      expect(atStop.processed).toBeLessThan(ADDRESSES);
      expect(atStop.queued).toBeGreaterThan(0);

      // Status requests made while the cluster elects new leaders may fail; the job must not.
      const done = await eventually(
        async () => {
          const res = await suite.call(`/v1/verify/file/${id}?timeout=30`, { key: account.apiKey });
          if (res.status !== 200 || !isTerminalJobState(res.json.data.status))
            throw new Error(`job ${id}: ${res.status} ${res.json?.data?.status ?? res.text.slice(0, 200)}`);
          return res.json.data as Record<string, unknown>;
        },
        { timeoutMs: 600_000, intervalMs: 500 },
      );
      expect(done).toMatchObject({
        status: 'completed',
        total_emails: ADDRESSES,
        processed_emails: ADDRESSES,
        valid_emails: valid,
        invalid_emails: ADDRESSES - valid,
        unknown_emails: 0,
        failed_chunks: 0,
        credits_used: ADDRESSES,
      });
      const after = (await suite.call('/v1/credits', { key: account.apiKey })).json.data
        .credits_balance as number;
      expect(before - after).toBe(ADDRESSES);
      const [stored] = await suite.sql<{ n: number; verified: number }>(
        `SELECT sum(cardinality(emails))::int AS n, sum(COALESCE(json_array_length(results::json), 0))::int AS verified
           FROM files.job_chunks WHERE job_id = $1`,
        [id],
      );
      expect(stored).toEqual({ n: ADDRESSES, verified: ADDRESSES });

      const file = await suite.call(`/v1/verify/file/${id}/results`, {
        key: account.apiKey,
        style: 'legacy',
      });
      expect(file.status, file.text.slice(0, 500)).toBe(200);
      const result = Papa.parse<string[]>(file.text.trimEnd()).data;
      expect(result).toHaveLength(rows.length + 1);
      expect(result.slice(1).map((r) => r[1])).toEqual(rows);
      const statusOf = new Map(unique.map((e, i) => [e, exists(i) ? 'valid' : 'invalid']));
      expect(result.slice(1).map((r) => r[3])).toEqual(rows.map((e) => statusOf.get(e)));

      // Each read of a stored file works while the node is still down (servers before 2.12 could place the
      // ephemeral consumer of an object-store read on it: nats-io/nats-server#7165).
      for (let i = 0; i < 6; i++) {
        const again = await suite.call(`/v1/verify/file/${id}/results`, {
          key: account.apiKey,
          style: 'legacy',
        });
        expect(again.status, again.text.slice(0, 500)).toBe(200);
        expect(again.text).toBe(file.text);
      }
    },
  );
});
