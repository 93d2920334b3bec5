import { randomUUID } from 'node:crypto';
import { EventSubjects, Subjects, type Webhook } from '@emailverify/contracts';
import { JetStreamKit } from '@emailverify/messaging';
import { type Account, eventually, TestSuite, WebhookReceiver } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The default WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, which the suite keeps. */
const CAP = 4;
/** Failed attempts in a row that open a webhook's breaker here (10 by default). */
const BREAKER_FAILURES = 5;
/** Deliveries due for each webhook. */
const DUE = 50;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are checked field by field
type Json = Record<string, any>;

/**
 * One webhook whose receiver hangs until the attempt's time-out, beside a healthy one, served by two replicas of
 * the webhooks service: the healthy receiver gets its deliveries while the other keeps failing, no more than
 * the cap of attempts is ever in flight to the hanging one, its circuit breaker opens (the delivery log and
 * the webhook list say so), and its deliveries, which waited, are delivered once it answers again.
 */
describe('webhooks: one hanging receiver holds back no other', () => {
  let receiver: WebhookReceiver;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    suite = await TestSuite.start({
      services: ['credits', 'webhooks'],
      env: {
        NODE_EXTRA_CA_CERTS: receiver.caFile,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_TIMEOUT_MS: '1000',
        // Enough attempts that none of the hanging webhook's deliveries runs out of them before its breaker opens.
        WEBHOOK_RETRY_SCHEDULE: '0,1s,1s,1s,1s,1s,1s,1s,1s,1s',
        WEBHOOK_BREAKER_FAILURES: String(BREAKER_FAILURES),
        WEBHOOK_POLL_INTERVAL_MS: '100',
      },
    });
    await suite.startService('webhooks', {}, 1);
    account = await suite.createAccount();
  });
  afterAll(async () => {
    await suite?.stop();
    await receiver?.stop();
  });

  const hook = async (path: string): Promise<Webhook> =>
    (
      await suite.bus.request(Subjects.webhooksCreate, {
        accountId: account.accountId,
        url: receiver.url(path),
        events: ['file.completed'],
      })
    ).webhook;

  /** GET /v1/webhooks/{id}/deliveries, as the customer reads it. */
  async function log(webhookId: string): Promise<Json> {
    const res = await suite.call(`/v1/webhooks/${webhookId}/deliveries?limit=100`, { key: account.apiKey });
    expect(res.status).toBe(200);
    return res.json.data as Json;
  }

  it(
    'delivers to the healthy receiver while the other hangs, caps it, pauses it and resumes it',
    { timeout: 240_000 },
    async () => {
      receiver.respond('/hanging', { hang: true });
      const hanging = await hook('/hanging');
      const healthy = await hook('/healthy');
      // DUE jobs complete at once: each event makes one delivery per webhook, all due now.
      const kit = new JetStreamKit(suite.bus);
      for (let i = 0; i < DUE; i++) {
        const jobId = randomUUID();
        await kit.publish(
          EventSubjects.completed,
          {
            event: 'file.completed',
            timestamp: new Date().toISOString(),
            accountId: account.accountId,
            data: { job_id: jobId, file_name: `isolation-${i}.csv`, status: 'completed' },
          },
          `${jobId}:file.completed`,
        );
      }

      await receiver.waitFor('/healthy', DUE, 120_000);
      // Every healthy delivery arrived while the hanging receiver had answered none of its own.
      const pending = (await log(hanging.id)).deliveries as Json[];
      expect(pending).toHaveLength(DUE);
      expect(pending.filter((d) => d.status === 'success')).toEqual([]);
      expect(receiver.requests('/hanging').length).toBeGreaterThan(0);
      // Each healthy outcome is stored a moment after its receiver answered.
      await eventually(async () => {
        const healthyLog = await log(healthy.id);
        expect((healthyLog.deliveries as Json[]).map((d) => d.status)).toEqual(Array(DUE).fill('success'));
        expect(healthyLog.breaker).toEqual({ state: 'closed', retry_at: null, consecutive_failures: 0 });
      });

      // Its breaker opens: its deliveries wait (pending, none failed for it), the log and the list say so.
      const open = await eventually(
        async () => {
          const { breaker } = await log(hanging.id);
          expect(breaker.state).toBe('open');
          return breaker as Json;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      expect(open.consecutive_failures).toBeGreaterThanOrEqual(BREAKER_FAILURES);
      expect(Date.parse(open.retry_at as string)).toBeGreaterThan(Date.now());
      const listed = await suite.call('/v1/webhooks', { key: account.apiKey });
      const inList = (listed.json.data.webhooks as Json[]).find((w) => w.id === hanging.id)!;
      expect(inList.breaker).toMatchObject({ state: 'open', retry_at: open.retry_at });
      const waiting = (await log(hanging.id)).deliveries as Json[];
      expect(waiting.map((d) => d.status)).toEqual(Array(DUE).fill('pending'));
      // A pending delivery's next attempt is the probe's time at the earliest.
      for (const d of waiting)
        expect(Date.parse(d.next_attempt_at as string)).toBeGreaterThanOrEqual(
          Date.parse(open.retry_at as string),
        );
      // Attempts failed before it opened: fewer than one per delivery, the rest used none of theirs.
      const attempted = waiting.filter((d) => (d.attempts as Json[]).length > 0);
      expect(attempted.length).toBeLessThan(DUE);

      // It answers again: the probe at the breaker's time succeeds, then every waiting delivery goes.
      receiver.respond('/hanging', 200);
      await eventually(
        async () => {
          const { deliveries } = await log(hanging.id);
          expect((deliveries as Json[]).filter((d) => d.status !== 'success')).toEqual([]);
        },
        { timeoutMs: 150_000, intervalMs: 250 },
      );
      expect((await log(hanging.id)).breaker).toEqual({
        state: 'closed',
        retry_at: null,
        consecutive_failures: 0,
      });
      // No more than the cap were ever in flight to it, across both replicas.
      const { peak } = receiver.concurrency('/hanging');
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThanOrEqual(CAP);
      expect(receiver.concurrency('/healthy').peak).toBeLessThanOrEqual(CAP);
      // Neither replica logged an error (a doubled or lost claim would).
      for (const key of ['webhooks', 'webhooks#1']) {
        const output = suite.processes.get(key)!.output.join('');
        expect(output, key).not.toMatch(/"level":50/);
      }
    },
  );
});
