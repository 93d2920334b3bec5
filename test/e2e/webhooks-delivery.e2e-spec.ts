import { type Webhook, Subjects } from '@emailverify/contracts';
import {
  type Account,
  eventually,
  MailWorld,
  type ReceivedRequest,
  TestSuite,
  verifySignatures,
  WebhookReceiver,
} from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Delay before each attempt: at once, then after 1.1 s (so a retry has a later timestamp), then 300 ms twice. */
const SCHEDULE = '0,1100ms,300ms,300ms';
const TIMEOUT_MS = 1500;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
type Json = Record<string, any>;

/**
 * The outcome rule's variants (a 410, a redirect, a time-out, the end of the schedule) are judged in
 * apps/webhooks/src/delivery/outcome.spec.ts, sent in http-sender.int-spec.ts and stored in
 * deliveries.repository.int-spec.ts; here one retried delivery and one that ends failed take the rule end to end.
 */
describe('webhooks: signed, durable, retried delivery of file events', () => {
  let world: MailWorld;
  let receiver: WebhookReceiver;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    world.domain('hooks.test', {
      mx: [{ priority: 10, host: 'mx.hooks.test', smtp: { mailboxes: ['jane', 'bob', 'ann'] } }],
    });
    receiver = await WebhookReceiver.start();
    suite = await TestSuite.start({
      world,
      env: {
        NODE_EXTRA_CA_CERTS: receiver.caFile,
        // The receiver lives on loopback; one test below restarts the service with the default (refuse).
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_POLL_INTERVAL_MS: '100',
      },
    });
    account = await suite.createAccount({ credits: 100_000 });
  });
  afterAll(async () => {
    await suite?.stop();
    await receiver?.stop();
  });

  let jobCount = 0;
  /** Uploads a small file and waits until its job is terminal; returns the status reply's data. */
  async function runJob(owner: Account = account): Promise<Json> {
    jobCount += 1;
    const csv = `email\njob${jobCount}.jane@hooks.test\nbob@hooks.test\n`;
    const up = await suite.upload({ key: owner.apiKey, file: { name: `job-${jobCount}.csv`, content: csv } });
    expect(up.status).toBe(200);
    return suite.finishedJob(up.json.data.task_id as string, owner.apiKey);
  }

  async function createWebhook(
    path: string,
    events: string[] = ['file.completed', 'file.failed'],
    owner: Account = account,
  ): Promise<{ webhook: Webhook; secret: string }> {
    return suite.bus.request(Subjects.webhooksCreate, {
      accountId: owner.accountId,
      url: receiver.url(path),
      events,
    });
  }

  const webhookOf = async (id: string, owner: Account = account) =>
    (await suite.bus.request(Subjects.webhooksList, { accountId: owner.accountId })).webhooks.find(
      (w) => w.id === id,
    )!;
  const deliveriesOf = async (id: string) =>
    (
      await suite.bus.request(Subjects.webhooksDeliveryList, {
        accountId: account.accountId,
        webhookId: id,
        limit: 100,
      })
    ).deliveries;

  /** Waits until the webhook's latest delivery has ended (every attempt of the schedule fits well within). */
  const settled = (id: string) =>
    eventually(
      async () => {
        const [latest] = await deliveriesOf(id);
        expect(latest?.status).toBeDefined();
        expect(latest!.status).not.toBe('pending');
        return latest!;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

  function expectSigned(request: ReceivedRequest, secret: string): void {
    expect(verifySignatures({ secret, headers: request.headers, rawBody: request.rawBody })).toEqual({
      xWebhookSignature: true,
      standardWebhooks: true,
    });
    expect(request.headers['x-webhook-id']).toBe(request.headers['webhook-id']);
    expect(request.headers['x-webhook-timestamp']).toBe(request.headers['webhook-timestamp']);
    expect(Math.abs(Number(request.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  }

  it('delivers file.completed, signed both ways, to each subscribed active webhook of the account only', async () => {
    const both = await createWebhook('/both');
    const completedOnly = await createWebhook('/completed', ['file.completed']);
    await createWebhook('/failed-only', ['file.failed']);
    const inactive = await createWebhook('/inactive');
    await suite.bus.request(Subjects.webhooksUpdate, {
      accountId: account.accountId,
      webhookId: inactive.webhook.id,
      isActive: false,
    });
    const stranger = await suite.createAccount();
    await createWebhook('/stranger', ['file.completed'], stranger);

    const job = await runJob();
    expect(job.status).toBe('completed');
    const [toBoth] = await receiver.waitFor('/both', 1);
    const [toCompleted] = await receiver.waitFor('/completed', 1);
    for (const [request, secret] of [
      [toBoth!, both.secret],
      [toCompleted!, completedOnly.secret],
    ] as const) {
      expect(request.method).toBe('POST');
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'Service-Webhook/1.0',
        'x-webhook-event': 'file.completed',
      });
      expectSigned(request, secret);
      const body = JSON.parse(request.body) as Json;
      expect(Object.keys(body)).toEqual(['event', 'timestamp', 'data']);
      expect(body.event).toBe('file.completed');
      expect(new Date(body.timestamp as string).toISOString()).toBe(job.completed_at);
      // The body's fields are those of the job's status reply.
      expect(body.data).toEqual({
        job_id: job.task_id,
        file_name: `job-${jobCount}.csv`,
        total_emails: job.total_emails,
        valid_emails: job.valid_emails,
        invalid_emails: job.invalid_emails,
        role_emails: job.role_emails,
        catchall_emails: job.catchall_emails,
        unknown_emails: job.unknown_emails,
        disposable_emails: job.disposable_emails,
        credits_used: job.credits_used,
        process_time_seconds: expect.any(Number),
        download_url: job.download_url,
        direct_download_url: expect.stringContaining(`/v1/verify/file/${job.task_id as string}/download`),
        direct_download_expires_at: expect.any(String),
      });
    }
    // Two webhooks, two deliveries, each with its own id.
    expect(toBoth!.headers['x-webhook-id']).not.toBe(toCompleted!.headers['x-webhook-id']);

    expect(await settled(both.webhook.id)).toMatchObject({
      event: 'file.completed',
      jobId: job.task_id,
      status: 'success',
      attempts: [{ httpStatus: 200, error: null, durationMs: expect.any(Number) }],
    });
    // What the customer sees in the list, in both styles.
    for (const style of ['current', 'legacy'] as const) {
      const list = await suite.call('/v1/webhooks', { key: account.apiKey, style });
      expect(list.status).toBe(200);
      const webhooks = (style === 'current' ? list.json.data : list.json).webhooks as Json[];
      expect(webhooks.find((w) => w.id === both.webhook.id)).toMatchObject({
        last_delivery_status: 'success',
        last_delivery_at: expect.any(String),
        last_error: null,
      });
      expect(webhooks.find((w) => w.id === inactive.webhook.id)).toMatchObject({
        is_active: false,
        last_delivery_status: null,
      });
    }

    // Single and bulk verification send nothing: the next job's deliveries arrive with nothing before them.
    await suite.call('/v1/verify/single', { key: account.apiKey, body: { email: 'ann@hooks.test' } });
    await suite.call('/v1/verify/bulk', { key: account.apiKey, body: { emails: ['ann@hooks.test'] } });
    await runJob();
    await receiver.waitFor('/both', 2);
    await receiver.waitFor('/completed', 2);
    expect(receiver.requests('/failed-only')).toHaveLength(0);
    expect(receiver.requests('/inactive')).toHaveLength(0);
    expect(receiver.requests('/stranger')).toHaveLength(0);
    expect(receiver.requests('/both')).toHaveLength(2);
  });

  it('delivers file.failed with the failure when a job fails', async () => {
    const hook = await createWebhook('/failures', ['file.failed']);
    // The job is paused before it can finish, so its file can be taken away: a one-row job may finish before the
    // pause reaches it on a busy machine, and then another is uploaded.
    let id = '';
    for (let attempt = 1; !id; attempt++) {
      const up = await suite.upload({
        key: account.apiKey,
        file: { name: 'doomed.csv', content: 'email\ndoomed@hooks.test\n' },
      });
      const uploaded = up.json.data.task_id as string;
      const paused = await suite.call(`/v1/verify/file/${uploaded}/pause`, {
        key: account.apiKey,
        method: 'POST',
      });
      if (paused.status === 200) id = uploaded;
      else if (attempt === 5) throw new Error(`no upload could be paused: ${paused.status} ${paused.text}`);
    }
    const [job] = await suite.sql<{ upload_object: string }>(
      `SELECT upload_object FROM files.jobs WHERE id = $1`,
      [id],
    );
    const { JetStreamKit } = await import('@emailverify/messaging');
    await (await new JetStreamKit(suite.bus).objectStore('files')).delete(job!.upload_object);
    await suite.call(`/v1/verify/file/${id}/resume`, { key: account.apiKey, method: 'POST' });
    const [request] = await receiver.waitFor('/failures', 1);
    expectSigned(request!, hook.secret);
    expect(request!.headers['x-webhook-event']).toBe('file.failed');
    const body = JSON.parse(request!.body) as Json;
    const status = (await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey })).json.data as Json;
    expect(status.status).toBe('failed');
    expect(body).toEqual({
      event: 'file.failed',
      timestamp: expect.any(String),
      data: {
        job_id: id,
        file_name: 'doomed.csv',
        status: 'failed',
        error: { code: expect.any(String), message: expect.any(String) },
        total_emails: status.total_emails,
        processed_emails: status.processed_emails,
        credits_used: status.credits_used,
      },
    });
  });

  it('retries a failed attempt on the schedule with the same id and body, freshly timestamped and signed', async () => {
    receiver.respond('/flaky', [500, 200]);
    const hook = await createWebhook('/flaky', ['file.completed']);
    await runJob();
    const [first, second] = await receiver.waitFor('/flaky', 2);
    expect(second!.headers['x-webhook-id']).toBe(first!.headers['x-webhook-id']);
    expect(second!.rawBody.equals(first!.rawBody)).toBe(true);
    expect(Number(second!.headers['x-webhook-timestamp'])).toBeGreaterThan(
      Number(first!.headers['x-webhook-timestamp']),
    );
    expect(second!.headers['x-webhook-signature']).not.toBe(first!.headers['x-webhook-signature']);
    expectSigned(first!, hook.secret);
    expectSigned(second!, hook.secret);
    // The second attempt waited for the schedule's second delay (1.1 s).
    expect(second!.receivedAt.getTime() - first!.receivedAt.getTime()).toBeGreaterThanOrEqual(1000);
    const delivery = await settled(hook.webhook.id);
    expect(delivery.status).toBe('success');
    expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([500, 200]);
    expect(delivery.attempts[0]).toMatchObject({ error: 'HTTP 500' });
    expect(await webhookOf(hook.webhook.id)).toMatchObject({
      lastDeliveryStatus: 'success',
      lastError: null,
    });
  });

  it('changes url, events and activity with PATCH, and redelivers the same delivery on request', async () => {
    const hook = await createWebhook('/before', ['file.failed']);
    const updated = await suite.bus.request(Subjects.webhooksUpdate, {
      accountId: account.accountId,
      webhookId: hook.webhook.id,
      url: receiver.url('/after'),
      events: ['file.completed'],
    });
    expect(updated).toMatchObject({
      url: receiver.url('/after'),
      events: ['file.completed'],
      isActive: true,
    });
    await runJob();
    const [original] = await receiver.waitFor('/after', 1);
    expect(receiver.requests('/before')).toHaveLength(0);
    const delivery = await settled(hook.webhook.id);

    const again = await suite.bus.request(Subjects.webhooksRedeliver, {
      accountId: account.accountId,
      webhookId: hook.webhook.id,
      deliveryId: delivery.id,
    });
    expect(again.id).toBe(delivery.id);
    const [, redelivered] = await receiver.waitFor('/after', 2);
    expect(redelivered!.headers['x-webhook-id']).toBe(original!.headers['x-webhook-id']);
    expect(redelivered!.rawBody.equals(original!.rawBody)).toBe(true);
    expectSigned(redelivered!, hook.secret);
    const log = await deliveriesOf(hook.webhook.id);
    expect(log).toHaveLength(1);
    await eventually(
      async () => {
        const [latest] = await deliveriesOf(hook.webhook.id);
        expect(latest!.attempts).toHaveLength(2);
        expect(latest!.status).toBe('success');
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

    await suite.bus.request(Subjects.webhooksUpdate, {
      accountId: account.accountId,
      webhookId: hook.webhook.id,
      isActive: false,
    });
    await runJob();
    await runJob();
    expect(receiver.requests('/after')).toHaveLength(2);
  });

  it('with the default setting, never connects to a host name that resolves to loopback, and says why', async () => {
    await suite.stopService('webhooks');
    await suite.startService('webhooks', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    try {
      // A host name is only resolved, and refused, when an attempt is made.
      const hook = await suite.bus.request(Subjects.webhooksCreate, {
        accountId: account.accountId,
        url: receiver.urlFor('localhost', '/ssrf'),
        events: ['file.completed'],
      });
      // An IP literal in a private range is refused when the webhook is made.
      await expect(
        suite.bus.request(Subjects.webhooksCreate, {
          accountId: account.accountId,
          url: receiver.url('/literal'),
          events: ['file.completed'],
        }),
      ).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'url' } });
      const connectionsBefore = receiver.connections;
      await runJob();
      const delivery = await settled(hook.webhook.id);
      expect(delivery.status).toBe('failed');
      expect(delivery.attempts).toHaveLength(4);
      for (const attempt of delivery.attempts) {
        expect(attempt.httpStatus).toBeNull();
        expect(attempt.error).toMatch(/refused: localhost resolves to (127\.0\.0\.1|::1) \(loopback\)/);
      }
      expect(receiver.connections).toBe(connectionsBefore);
      expect(receiver.requests('/ssrf')).toHaveLength(0);
    } finally {
      await suite.stopService('webhooks');
      await suite.startService('webhooks');
    }
  });
});
