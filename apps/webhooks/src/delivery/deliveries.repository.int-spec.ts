import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountId } from '@emailverify/contracts';
import { type DataSource, Sql } from '@emailverify/persistence';
import { openTestDatabase } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhooksMigrations } from '../migrations';
import { SecretBox } from '../webhooks/secret-box';
import { WebhooksRepository } from '../webhooks/webhooks.repository';
import {
  type AttemptOutcome,
  type AttemptRecord,
  DeliveriesRepository,
  type NewEvent,
} from './deliveries.repository';

/** The cap on attempts in flight to one webhook in the tests about it. */
const CAP = 4;
/** No cap worth the name, where the cap is not what a test is about. */
const UNCAPPED = 1_000;

/** A new account's id, as the services receive one. */
const newAccountId = () => randomUUID() as AccountId;

describe('deliveries in PostgreSQL: intake, claims shared by replicas, outcomes', () => {
  let db: DataSource;
  let drop: () => Promise<void>;
  let webhooks: WebhooksRepository;
  let deliveries: DeliveriesRepository;
  const box = new SecretBox(randomBytes(32));

  beforeAll(async () => {
    ({ db, drop } = await openTestDatabase('webhooks', webhooksMigrations));
    webhooks = new WebhooksRepository(new Sql(db));
    deliveries = new DeliveriesRepository(new Sql(db));
  });
  afterAll(async () => drop?.());

  async function makeWebhook(accountId: AccountId, events = ['file.completed', 'file.failed']) {
    const id = randomUUID();
    const row = await webhooks.create(
      accountId,
      {
        id,
        url: 'https://hooks.example.com/in',
        events,
        secretSealed: box.seal('whsec_x', id),
        secretKeyId: box.keyId,
      },
      25,
    );
    return row!;
  }

  function event(accountId: AccountId, kind = 'file.completed', jobId = randomUUID()) {
    return {
      accountId,
      eventId: `${jobId}:${kind}`,
      event: kind,
      jobId,
      body: `{"event":"${kind}"}`,
      requestId: null,
    };
  }

  /** The deliveries of one event, due at once. */
  async function make(e: NewEvent) {
    const [made] = await deliveries.createForEvents([e], 0);
    return made!;
  }

  function attempt(delivery: { id: string; webhook_id: string; attempt_count: number }): AttemptRecord {
    return {
      deliveryId: delivery.id,
      webhookId: delivery.webhook_id,
      n: delivery.attempt_count,
      at: new Date(),
      httpStatus: 500,
      durationMs: 12,
      error: 'HTTP 500',
      responseBody: 'oops',
    };
  }

  /** Stores one attempt and its outcome, as the dispatcher does: whether it was stored, what its breaker did. */
  async function recordWith(a: AttemptRecord, outcome: AttemptOutcome, breakerFailures = 1_000) {
    return deliveries.recordAttempt({ attempt: a, outcome }, { disableAfterDays: 5, breakerFailures });
  }
  const record = async (a: AttemptRecord, outcome: AttemptOutcome) => (await recordWith(a, outcome)).recorded;

  /** Claims until nothing is due (other tests' deliveries included), keeping those of `webhookIds`. */
  async function claimAll(webhookIds: string[], perWebhook = UNCAPPED) {
    const mine = [];
    for (;;) {
      const claimed = await deliveries.claimDue(100, 60_000, perWebhook);
      if (claimed.length === 0) return mine;
      mine.push(...claimed.filter((d) => webhookIds.includes(d.webhook_id)));
    }
  }

  it('makes one delivery per active subscribed webhook of the account, once per event', async () => {
    const account = newAccountId();
    const both = await makeWebhook(account);
    const failedOnly = await makeWebhook(account, ['file.failed']);
    const inactive = await makeWebhook(account);
    await webhooks.update(account, inactive.id, { isActive: false });
    const other = await makeWebhook(newAccountId());
    const e = event(account);
    expect((await make(e)).ids).toHaveLength(1);
    expect((await make(e)).ids).toHaveLength(0);
    const claimed = await claimAll([both.id, failedOnly.id, inactive.id, other.id]);
    expect(claimed.map((d) => d.webhook_id)).toEqual([both.id]);
  });

  it('makes the deliveries of a batch of events of several accounts in one go, each event once', async () => {
    const first = newAccountId();
    const second = newAccountId();
    const firstHooks = await Promise.all([makeWebhook(first), makeWebhook(first)]);
    const failedOnly = await makeWebhook(second, ['file.failed']);
    const secondHook = await makeWebhook(second);
    const earlier = event(first);
    await make(earlier);
    const a = event(first);
    const b = event(second);
    const failed = event(second, 'file.failed');
    const made = await deliveries.createForEvents([a, b, a, earlier, failed], 0);
    expect(made.map((m) => m.ids.length)).toEqual([2, 1, 0, 0, 2]);
    const claimed = await claimAll([...firstHooks.map((h) => h.id), failedOnly.id, secondHook.id]);
    expect(claimed).toHaveLength(2 + 2 + 1 + 2);
    const byBody = (hookId: string) =>
      claimed
        .filter((d) => d.webhook_id === hookId)
        .map((d) => d.event)
        .sort();
    expect(byBody(firstHooks[0]!.id)).toEqual(['file.completed', 'file.completed']);
    expect(byBody(secondHook.id)).toEqual(['file.completed', 'file.failed']);
    expect(byBody(failedOnly.id)).toEqual(['file.failed']);
  });

  it('makes each delivery once when two replicas are given the same events at once', async () => {
    const account = newAccountId();
    const hooks = await Promise.all(Array.from({ length: 5 }, () => makeWebhook(account)));
    const events = Array.from({ length: 20 }, () => event(account));
    const results = await Promise.all(
      [events, [...events].reverse(), events, [...events].reverse()].map((batch) =>
        deliveries.createForEvents(batch, 0),
      ),
    );
    expect(results.flat().reduce((n, m) => n + m.ids.length, 0)).toBe(100);
    expect(await claimAll(hooks.map((h) => h.id))).toHaveLength(100);
  });

  it('hands each due delivery to exactly one of several concurrent claimers', async () => {
    const account = newAccountId();
    const hooks = await Promise.all(Array.from({ length: 5 }, () => makeWebhook(account)));
    for (let i = 0; i < 20; i++) await make(event(account));
    const ids = hooks.map((h) => h.id);
    const rounds = await Promise.all(Array.from({ length: 6 }, () => claimAll(ids)));
    const claimed = rounds.flat().map((d) => d.id);
    expect(claimed).toHaveLength(100);
    expect(new Set(claimed).size).toBe(100);
  });

  it('gives an expired claim to the next claimer, and the first process then records nothing', async () => {
    const account = newAccountId();
    const hook = await makeWebhook(account);
    await make(event(account));
    const [first] = (await deliveries.claimDue(100, 1, UNCAPPED)).filter((d) => d.webhook_id === hook.id);
    expect(first?.attempt_count).toBe(1);
    await db.query(
      `UPDATE webhooks.deliveries SET claimed_until = now() - interval '1 second' WHERE id = $1`,
      [first!.id],
    );
    const [second] = (await claimAll([hook.id])).filter((d) => d.id === first!.id);
    expect(second?.attempt_count).toBe(2);
    expect(await record(attempt(first!), { kind: 'failed' })).toBe(false);
    expect(await record(attempt(second!), { kind: 'success' })).toBe(true);
    const [log] = await deliveries.list(account, hook.id, 10);
    expect(log).toMatchObject({ status: 'success' });
    expect(log!.attempts.map((a) => a.n)).toEqual([2]);
  });

  it('stores a batch of outcomes, each as a whole, and says which were stored', async () => {
    const account = newAccountId();
    const [a, b, c, d] = await Promise.all([
      makeWebhook(account),
      makeWebhook(account),
      makeWebhook(account),
      makeWebhook(account),
    ]);
    for (let i = 0; i < 2; i++) await make(event(account));
    const claimed = await claimAll([a.id, b.id, c.id, d.id]);
    const of = (hook: { id: string }) => claimed.filter((x) => x.webhook_id === hook.id);
    const [aOk, aRetry] = of(a);
    const [bFailed, bOk] = of(b);
    const [cGone, cStale] = of(c);
    const [dRetry] = of(d);
    const stale = { ...attempt(cStale!), n: cStale!.attempt_count + 1 };
    const next = new Date(Date.now() + 60_000);
    const recorded = [
      await record({ ...attempt(aOk!), httpStatus: 204, error: null }, { kind: 'success' }),
      await record(attempt(aRetry!), { kind: 'retry', nextAttemptAt: next }),
      await record(attempt(bFailed!), { kind: 'failed' }),
      await record({ ...attempt(bOk!), httpStatus: 200, error: null }, { kind: 'success' }),
      await record({ ...attempt(cGone!), httpStatus: 410, error: 'gone' }, { kind: 'gone' }),
      await record(stale, { kind: 'success' }),
      await record(attempt(dRetry!), { kind: 'retry', nextAttemptAt: next }),
    ];
    expect(recorded).toEqual([true, true, true, true, true, false, true]);
    const log = async (hook: { id: string }) =>
      new Map((await deliveries.list(account, hook.id, 10)).map((d) => [d.id, d]));
    const aLog = await log(a);
    expect(aLog.get(aOk!.id)).toMatchObject({ status: 'success', next_attempt_at: null });
    expect(aLog.get(aOk!.id)!.attempts).toMatchObject([{ n: 1, http_status: 204, error: null }]);
    expect(aLog.get(aRetry!.id)).toMatchObject({ status: 'pending', next_attempt_at: next });
    expect(aLog.get(aRetry!.id)!.attempts).toMatchObject([{ n: 1, http_status: 500, error: 'HTTP 500' }]);
    const bLog = await log(b);
    expect(bLog.get(bFailed!.id)).toMatchObject({ status: 'failed' });
    expect(bLog.get(bOk!.id)).toMatchObject({ status: 'success' });
    const cLog = await log(c);
    expect(cLog.get(cGone!.id)).toMatchObject({ status: 'failed' });
    // The stale claim stored nothing.
    expect(cLog.get(cStale!.id)!.attempts).toEqual([]);
    expect(await webhooks.find(account, a.id)).toMatchObject({
      last_delivery_status: 'success',
      is_active: true,
    });
    // A 410 ends the webhook, its error kept as its last.
    expect(await webhooks.find(account, c.id)).toMatchObject({
      last_delivery_status: 'failed',
      last_error: 'gone',
      is_active: false,
    });
    // A retry is no final outcome: the webhook shows none yet.
    expect(await webhooks.find(account, d.id)).toMatchObject({
      last_delivery_status: null,
      last_delivery_at: null,
      last_error: null,
      is_active: true,
    });
  });

  it('ends the waiting deliveries of a deactivated webhook, by PATCH or by a 410, but not one in flight', async () => {
    for (const deactivation of ['patch', 'gone'] as const) {
      const account = newAccountId();
      const hook = await makeWebhook(account);
      // Two deliveries claimed for an attempt (in flight), two waiting for theirs.
      const inFlight = await make(event(account));
      await make(event(account));
      const [answered] = (await claimAll([hook.id])).filter((d) => d.id !== inFlight.ids[0]);
      const waiting = [await make(event(account)), await make(event(account))];
      if (deactivation === 'patch') {
        await webhooks.update(account, hook.id, { isActive: false });
      } else {
        const gone = answered!;
        expect(await record({ ...attempt(gone), httpStatus: 410, error: 'gone' }, { kind: 'gone' })).toBe(
          true,
        );
      }
      const log = new Map((await deliveries.list(account, hook.id, 10)).map((d) => [d.id, d]));
      expect(log.get(inFlight.ids[0]!), deactivation).toMatchObject({ status: 'pending' });
      for (const made of waiting) {
        expect(log.get(made.ids[0]!), deactivation).toMatchObject({
          status: 'failed',
          next_attempt_at: null,
        });
      }
      expect(await webhooks.find(account, hook.id)).toMatchObject({ is_active: false });
    }
  });

  it('stores concurrent outcomes over the same webhooks without losing any', async () => {
    const account = newAccountId();
    const hooks = await Promise.all(Array.from({ length: 6 }, () => makeWebhook(account)));
    for (let i = 0; i < 10; i++) await make(event(account));
    const claimed = await claimAll(hooks.map((h) => h.id));
    expect(claimed).toHaveLength(60);
    // All at once, ten to each webhook, half of them failed attempts (to be retried).
    const results = await Promise.all(
      claimed.map((d, i) =>
        i % 2
          ? record({ ...attempt(d), httpStatus: 200, error: null }, { kind: 'success' })
          : record(attempt(d), { kind: 'retry', nextAttemptAt: new Date(Date.now() + 60_000) }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(60);
    const [row] = (await db.query(
      `SELECT count(*)::int AS n FROM webhooks.deliveries WHERE account_id = $1 AND status = 'success'`,
      [account],
    )) as Array<{ n: number }>;
    expect(row!.n).toBe(30);
  });

  it('claims with what the attempt needs, its next attempt moved to the end of the claim', async () => {
    const account = newAccountId();
    const hook = await makeWebhook(account);
    const made = await make(event(account));
    const [claimed] = await claimAll([hook.id]);
    expect(claimed).toMatchObject({
      id: made.ids[0],
      webhook_id: hook.id,
      attempt_count: 1,
      url: 'https://hooks.example.com/in',
      is_active: true,
      body: '{"event":"file.completed"}',
    });
    expect(box.open(claimed!.secret_sealed, hook.id)).toBe('whsec_x');
    expect(await claimAll([hook.id])).toEqual([]);
    // While claimed, its next attempt is when the claim runs out (should this attempt be lost).
    const [row] = (await db.query(
      `SELECT next_attempt_at = claimed_until AS at_claim_end, next_attempt_at <= now() AS due
         FROM webhooks.deliveries WHERE id = $1`,
      [claimed!.id],
    )) as Array<{ at_claim_end: boolean; due: boolean }>;
    expect(row).toEqual({ at_claim_end: true, due: false });
    expect(await record({ ...attempt(claimed!), httpStatus: 200, error: null }, { kind: 'success' })).toBe(
      true,
    );
    const [log] = await deliveries.list(account, hook.id, 10);
    expect(log).toMatchObject({ status: 'success' });
    expect(log!.attempts.map((a) => a.n)).toEqual([1]);
  });

  it('never has more than the cap in flight to one webhook, however many replicas claim at once', async () => {
    const account = newAccountId();
    const hooks = await Promise.all(Array.from({ length: 3 }, () => makeWebhook(account)));
    // Made in one statement, all due at the same moment: claimers cannot tell which are oldest.
    await deliveries.createForEvents(
      Array.from({ length: 20 }, () => event(account)),
      0,
    );
    const ids = hooks.map((h) => h.id);
    const inFlight = async () =>
      (
        (await db.query(
          `SELECT webhook_id, count(*)::int AS n FROM webhooks.deliveries
            WHERE webhook_id = ANY ($1::uuid[]) AND claimed_until > now() GROUP BY webhook_id`,
          [ids],
        )) as Array<{ webhook_id: string; n: number }>
      ).map((r) => r.n);
    // Eight replicas claim at once, each for up to 3 attempts (so that several claim for one webhook), 4 times.
    const claimed: string[] = [];
    for (let round = 0; round < 4; round++) {
      const claims = await Promise.all(Array.from({ length: 8 }, () => deliveries.claimDue(3, 60_000, CAP)));
      claimed.push(
        ...claims
          .flat()
          .filter((d) => ids.includes(d.webhook_id))
          .map((d) => d.id),
      );
      expect((await inFlight()).every((n) => n <= CAP)).toBe(true);
    }
    expect(new Set(claimed).size).toBe(claimed.length);
    // Whatever is left to claim fills each webhook up to its cap, and no further.
    await claimAll(ids, CAP);
    expect(await inFlight()).toEqual([CAP, CAP, CAP]);
    // An attempt recorded makes room for exactly one more to that webhook.
    const [held] = (await db.query(
      `SELECT id, webhook_id, attempt_count FROM webhooks.deliveries
        WHERE webhook_id = $1 AND claimed_until > now() LIMIT 1`,
      [hooks[0]!.id],
    )) as Array<{ id: string; webhook_id: string; attempt_count: number }>;
    await record({ ...attempt(held!), httpStatus: 200, error: null }, { kind: 'success' });
    expect((await claimAll(ids, CAP)).map((d) => d.webhook_id)).toEqual([hooks[0]!.id]);
  });

  it('claims for other webhooks while one is at its cap, however old its due deliveries', async () => {
    const account = newAccountId();
    const [stuck, healthy] = [await makeWebhook(account), await makeWebhook(account, ['file.failed'])];
    for (let i = 0; i < 10; i++) await make(event(account, 'file.completed'));
    await db.query(
      `UPDATE webhooks.deliveries SET next_attempt_at = now() - interval '1 hour' WHERE webhook_id = $1`,
      [stuck.id],
    );
    await make(event(account, 'file.failed'));
    // One look for CAP + 1 due deliveries: the stuck webhook's are the oldest, yet it gets only its cap.
    const first = (await deliveries.claimDue(CAP + 1, 60_000, CAP)).map((d) => d.webhook_id);
    expect(first.filter((id) => id === stuck.id)).toHaveLength(CAP);
    expect(first.filter((id) => id === healthy.id)).toHaveLength(1);
    expect(await claimAll([stuck.id], CAP)).toEqual([]);
  });

  it('opens the breaker after the set number of failed attempts: no claims until one probe at its time', async () => {
    const account = newAccountId();
    const hook = await makeWebhook(account);
    for (let i = 0; i < 5; i++) await make(event(account));
    const fail = async (d: { id: string; webhook_id: string; attempt_count: number }) => {
      const next = new Date(Date.now() - 1_000); // due again at once, were it not for the breaker
      return (await recordWith(attempt(d), { kind: 'retry', nextAttemptAt: next }, 3)).breaker;
    };
    const claimed = await claimAll([hook.id]);
    expect(claimed).toHaveLength(5);
    expect([await fail(claimed[0]!), await fail(claimed[1]!), await fail(claimed[2]!)]).toEqual([
      'none',
      'none',
      'opened',
    ]);
    const open = (await webhooks.find(account, hook.id))!;
    expect(open).toMatchObject({ consecutive_failures: 3, breaker_pause_ms: 30_000 });
    expect(open.breaker_retry_at!.getTime() - open.breaker_opened_at!.getTime()).toBe(30_000);
    // Attempts in flight when it opened only count; their deliveries, due again, wait.
    expect(await fail(claimed[3]!)).toBe('none');
    expect(await claimAll([hook.id])).toEqual([]);
    const log = await deliveries.list(account, hook.id, 10);
    expect(log.filter((d) => d.status === 'pending')).toHaveLength(5);
    expect(log.every((d) => d.attempts.length <= 1)).toBe(true);
    // Its probe time comes: one attempt (the last in flight has ended), not more.
    await db.query(`UPDATE webhooks.webhooks SET breaker_retry_at = now() WHERE id = $1`, [hook.id]);
    expect(await claimAll([hook.id])).toEqual([]); // one still in flight holds the probe's place
    await fail(claimed[4]!).then((change) => expect(change).toBe('reopened'));
    expect((await webhooks.find(account, hook.id))!.breaker_pause_ms).toBe(60_000);
    await db.query(`UPDATE webhooks.webhooks SET breaker_retry_at = now() WHERE id = $1`, [hook.id]);
    const probes = await claimAll([hook.id]);
    expect(probes).toHaveLength(1);
    const probe = await recordWith(
      { ...attempt(probes[0]!), httpStatus: 200, error: null },
      { kind: 'success' },
      3,
    );
    expect(probe).toEqual({ recorded: true, breaker: 'closed' });
    expect(await webhooks.find(account, hook.id)).toMatchObject({
      consecutive_failures: 0,
      breaker_opened_at: null,
      breaker_retry_at: null,
    });
    expect(await claimAll([hook.id])).toHaveLength(4);
  });

  it('closes the breaker when the webhook gets a new url or is turned back on, not on other changes', async () => {
    const account = newAccountId();
    const hook = await makeWebhook(account);
    const open = () =>
      db.query(
        `UPDATE webhooks.webhooks SET consecutive_failures = 10, breaker_opened_at = now(),
                breaker_pause_ms = 30000, breaker_retry_at = now() + interval '30 seconds'
          WHERE id = $1`,
        [hook.id],
      );
    const closed = { consecutive_failures: 0, breaker_opened_at: null, breaker_retry_at: null };
    await open();
    expect(await webhooks.update(account, hook.id, { events: ['file.failed'] })).toMatchObject({
      consecutive_failures: 10,
    });
    expect(await webhooks.update(account, hook.id, { url: 'https://hooks.example.com/new' })).toMatchObject(
      closed,
    );
    await open();
    expect(await webhooks.update(account, hook.id, { isActive: true })).toMatchObject(closed);
  });

  it("brings an open breaker's probe forward to now when a delivery is redelivered", async () => {
    const account = newAccountId();
    const hook = await makeWebhook(account);
    const made = await make(event(account));
    await db.query(
      `UPDATE webhooks.webhooks SET consecutive_failures = 10, breaker_opened_at = now(),
              breaker_pause_ms = 30000, breaker_retry_at = now() + interval '30 seconds'
        WHERE id = $1`,
      [hook.id],
    );
    expect(await claimAll([hook.id])).toEqual([]);
    expect(await deliveries.redeliver(account, hook.id, made.ids[0]!)).toBe(true);
    expect((await claimAll([hook.id])).map((d) => d.id)).toEqual([made.ids[0]]);
    // Not for another account's webhook.
    expect(await deliveries.redeliver(newAccountId(), hook.id, made.ids[0]!)).toBe(false);
  });

  it('deactivates a webhook whose deliveries all failed for the set number of days, and not before', async () => {
    const account = newAccountId();
    const hook = await makeWebhook(account);
    const fail = async () => {
      await make(event(account));
      const [claimed] = await claimAll([hook.id]);
      await record(attempt(claimed!), { kind: 'failed' });
      return (await webhooks.find(account, hook.id))!;
    };
    expect(await fail()).toMatchObject({
      is_active: true,
      last_delivery_status: 'failed',
      last_error: 'HTTP 500',
    });
    // Four days of failures: still active.
    await db.query(`UPDATE webhooks.webhooks SET failing_since = now() - interval '4 days' WHERE id = $1`, [
      hook.id,
    ]);
    expect((await fail()).is_active).toBe(true);
    // Five days: the next final failure deactivates it, and says why.
    await db.query(`UPDATE webhooks.webhooks SET failing_since = now() - interval '5 days' WHERE id = $1`, [
      hook.id,
    ]);
    const disabled = await fail();
    expect(disabled.is_active).toBe(false);
    expect(disabled.last_error).toMatch(/Deactivated: every delivery failed for 5 days.*HTTP 500/);
    // Reactivated, the count starts afresh.
    await webhooks.update(account, hook.id, { isActive: true });
    expect((await fail()).is_active).toBe(true);
  });

  it('starts the count afresh after a success', async () => {
    const account = newAccountId();
    const hook = await makeWebhook(account);
    await db.query(`UPDATE webhooks.webhooks SET failing_since = now() - interval '9 days' WHERE id = $1`, [
      hook.id,
    ]);
    await make(event(account));
    const [ok] = await claimAll([hook.id]);
    await record(attempt(ok!), { kind: 'success' });
    await make(event(account));
    const [failed] = await claimAll([hook.id]);
    await record(attempt(failed!), { kind: 'failed' });
    expect(await webhooks.find(account, hook.id)).toMatchObject({
      is_active: true,
      last_delivery_status: 'failed',
    });
  });

  it('pages the delivery log newest first without skipping or repeating rows', async () => {
    const account = newAccountId();
    const hook = await makeWebhook(account);
    for (let i = 0; i < 7; i++) await make(event(account));
    const seen: string[] = [];
    let after: { createdKey: string; id: string } | undefined;
    for (;;) {
      const page = await deliveries.list(account, hook.id, 3, after);
      seen.push(...page.map((d) => d.id));
      if (page.length < 3) break;
      const last = page[page.length - 1]!;
      after = { createdKey: last.created_key, id: last.id };
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect(await deliveries.list(newAccountId(), hook.id, 10)).toEqual([]);
  });
});
