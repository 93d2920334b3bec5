import { Streams, Subjects } from '@emailverify/contracts';
import { JetStreamKit } from '@emailverify/messaging';
import { type Account, eventually, MailWorld, TestSuite, WebhookReceiver } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
type Json = Record<string, any>;

/**
 * Webhook deliveries survive the faults of their producers and of themselves: a stopped or killed webhooks
 * service, two replicas sharing the work, a file-jobs process killed right after a job completes, and an
 * EVENTS stream that is gone when the job completes.
 */
describe('webhooks under faults: nothing lost, nothing doubled', () => {
  let world: MailWorld;
  let receiver: WebhookReceiver;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    world.domain('faults.test', {
      mx: [{ priority: 10, host: 'mx.faults.test', smtp: { mailboxes: ['jane', 'bob'] } }],
    });
    receiver = await WebhookReceiver.start();
    suite = await TestSuite.start({
      world,
      env: {
        NODE_EXTRA_CA_CERTS: receiver.caFile,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '0,3s,1s',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        FILE_RECOVERY_INTERVAL_MS: '500',
      },
    });
    account = await suite.createAccount({ credits: 100_000 });
  });
  afterAll(async () => {
    await suite?.stop();
    await receiver?.stop();
  });

  let jobCount = 0;
  async function upload(owner: Account = account): Promise<string> {
    jobCount += 1;
    const up = await suite.upload({
      key: owner.apiKey,
      file: { name: `faults-${jobCount}.csv`, content: `email\nfault${jobCount}.jane@faults.test\n` },
    });
    expect(up.status).toBe(200);
    return up.json.data.task_id as string;
  }

  const finished = (id: string, owner: Account = account): Promise<Json> =>
    suite.finishedJob(id, owner.apiKey);

  async function hook(path: string, owner: Account) {
    return suite.bus.request(Subjects.webhooksCreate, {
      accountId: owner.accountId,
      url: receiver.url(path),
      events: ['file.completed'],
    });
  }

  /** Deliveries received on `path`, by job id (from each body). */
  function byJob(path: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const request of receiver.requests(path)) {
      const jobId = (JSON.parse(request.body) as Json).data.job_id as string;
      counts.set(jobId, (counts.get(jobId) ?? 0) + 1);
    }
    return counts;
  }

  /** Lets time pass for anything that would arrive twice to arrive (a wait, not a speed bound). */
  const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('delivers an event that completed while the webhooks service was stopped, once it starts', async () => {
    const owner = await suite.createAccount({ credits: 1000 });
    await hook('/stopped', owner);
    await suite.stopService('webhooks');
    const id = await upload(owner);
    expect((await finished(id, owner)).status).toBe('completed');
    expect(receiver.requests('/stopped')).toHaveLength(0);
    await suite.startService('webhooks');
    await receiver.waitFor('/stopped', 1);
    await quiet(1500);
    expect([...byJob('/stopped').entries()]).toEqual([[id, 1]]);
  });

  it('makes the next attempt once after the webhooks service is killed between two attempts', async () => {
    const owner = await suite.createAccount({ credits: 1000 });
    receiver.respond('/killed', [500, 200]);
    await hook('/killed', owner);
    const id = await upload(owner);
    await receiver.waitFor('/killed', 1);
    // Once the failed first attempt is recorded (the next one 3 s away), the process dies.
    await eventually(
      async () => {
        const recorded = await suite.sql(
          `SELECT 1 FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.job_id = $1`,
          [id],
        );
        expect(recorded.length).toBeGreaterThan(0);
      },
      { intervalMs: 20 },
    );
    await suite.stopService('webhooks', 'SIGKILL');
    const [pending] = await suite.sql<{ status: string; attempt_count: number; due: boolean }>(
      `SELECT status, attempt_count, next_attempt_at > now() AS due FROM webhooks.deliveries WHERE job_id = $1`,
      [id],
    );
    // The fault came between the two attempts: one made, the next still ahead.
    expect(pending).toMatchObject({ status: 'pending', attempt_count: 1, due: true });
    await suite.startService('webhooks');
    const [first, second] = await receiver.waitFor('/killed', 2);
    expect(second!.headers['x-webhook-id']).toBe(first!.headers['x-webhook-id']);
    await quiet(2500);
    expect(receiver.requests('/killed')).toHaveLength(2);
  });

  it('has two replicas make every attempt exactly once', async () => {
    const owner = await suite.createAccount({ credits: 10_000 });
    receiver.respond('/shared', [500, 200]);
    for (let i = 0; i < 5; i++) await hook(`/shared`, owner);
    await suite.startService('webhooks', {}, 1);
    try {
      const ids = [];
      for (let i = 0; i < 6; i++) ids.push(await upload(owner));
      for (const id of ids) await finished(id, owner);
      // 6 jobs x 5 webhooks; the receiver answers 500 once (the first request of all) then 200. The deliveries
      // are made once the events reach the webhooks service, after the jobs finished.
      await eventually(async () => {
        const [made] = await suite.sql<{ deliveries: number }>(
          `SELECT count(*)::int AS deliveries FROM webhooks.deliveries WHERE account_id = $1`,
          [owner.accountId],
        );
        expect(made!.deliveries).toBe(30);
      });
      await receiver.waitFor('/shared', 31);
      await quiet(4500);
      const attempts = receiver.requests('/shared');
      expect(attempts).toHaveLength(31);
      const perDelivery = new Map<string, number>();
      for (const r of attempts) {
        const deliveryId = r.headers['x-webhook-id']!;
        perDelivery.set(deliveryId, (perDelivery.get(deliveryId) ?? 0) + 1);
      }
      expect(perDelivery.size).toBe(30);
      expect([...perDelivery.values()].sort()).toEqual([...Array<number>(29).fill(1), 2]);
      // Neither replica logged an error (a doubled or lost claim would).
      const logs = [suite.processes.get('webhooks')!, suite.processes.get('webhooks#1')!];
      for (const proc of logs) expect(proc.output.join('')).not.toMatch(/"level":50/);
    } finally {
      await suite.stopService('webhooks', 'SIGTERM', 1);
    }
  });

  it('delivers the event of a job whose file-jobs process is killed right after completing it, once', async () => {
    const owner = await suite.createAccount({ credits: 1000 });
    await hook('/after-kill', owner);
    const id = await upload(owner);
    await eventually(
      async () => {
        const [job] = await suite.sql<{ status: string }>(`SELECT status FROM files.jobs WHERE id = $1`, [
          id,
        ]);
        expect(job?.status).toBe('completed');
      },
      { timeoutMs: 30_000, intervalMs: 5 },
    );
    await suite.stopService('file-jobs', 'SIGKILL');
    await suite.startService('file-jobs');
    await receiver.waitFor('/after-kill', 1);
    await quiet(12_000); // past the outbox's grace period, when recovery would publish a second time
    expect([...byJob('/after-kill').entries()]).toEqual([[id, 1]]);
  });

  it('keeps an event whose publication failed in the outbox and publishes it when JetStream has the stream again', async () => {
    const owner = await suite.createAccount({ credits: 1000 });
    await hook('/outbox', owner);
    // The webhooks service (which would recreate the stream at start) is down, and EVENTS is gone.
    await suite.stopService('webhooks');
    const kit = new JetStreamKit(suite.bus);
    await (await kit.jsm()).streams.delete(kit.streamName(Streams.events.name));
    const id = await upload(owner);
    expect((await finished(id, owner)).status).toBe('completed');
    // The fault happened while the event was in flight: the state changed, the event is owed.
    expect(await suite.sql(`SELECT event FROM files.event_outbox WHERE job_id = $1`, [id])).toEqual([
      { event: 'file.completed' },
    ]);
    await suite.startService('webhooks');
    await receiver.waitFor('/outbox', 1);
    await eventually(
      async () =>
        expect(await suite.sql(`SELECT 1 FROM files.event_outbox WHERE job_id = $1`, [id])).toEqual([]),
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    await quiet(1500);
    expect([...byJob('/outbox').entries()]).toEqual([[id, 1]]);
  });
});
