import { Injectable } from '@nestjs/common';
import type { AccountId } from '@emailverify/contracts';
import { columns, isConflictAbort, NO_FLUSH_WAIT, type Queryable, Sql } from '@emailverify/persistence';

/** An event to be turned into deliveries. */
export interface NewEvent {
  accountId: AccountId;
  eventId: string;
  event: string;
  jobId: string;
  body: string;
  requestId: string | null;
}

/** When the first attempts of new deliveries are due, and whether some are made claimed by the caller. */
export interface FirstAttempts {
  /** Delay before the first attempt. */
  delayMs: number;
  /** Make up to `max` of the deliveries claimed for their first attempt by the calling process, for `ms`. */
  claim?: { ms: number; max: number };
}

/** The deliveries made for one event: all of their ids, and those made claimed with what their attempts need. */
export interface EventDeliveries {
  ids: string[];
  claimed: ClaimedDelivery[];
}

/** A delivery claimed for one attempt, with what the attempt needs of its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event: string;
  body: string;
  /** The number of this attempt (1 for the first). */
  attempt_count: number;
  max_attempts: number | null;
  request_id: string | null;
  url: string;
  secret_sealed: Buffer;
  secret_key_id: string;
  /** The rotated-out secret while it still signs (the overlap after a rotation); null otherwise. */
  previous_secret_sealed: Buffer | null;
  is_active: boolean;
}

/** The webhook columns an attempt needs, `w` being the webhook's row. */
const SIGNING_COLUMNS = `w.url, w.secret_sealed, w.secret_key_id,
  CASE WHEN w.previous_secret_until > now() THEN w.previous_secret_sealed END AS previous_secret_sealed,
  w.is_active`;

export interface AttemptRecord {
  deliveryId: string;
  webhookId: string;
  /** The claimed attempt number: a claim that expired and was taken over records nothing. */
  n: number;
  at: Date;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

/**
 * What an attempt leads to: delivered; another attempt at `nextAttemptAt`; failed for good; or `gone` (410),
 * which also deactivates the webhook. `inactive` ends a delivery whose webhook was deactivated meanwhile.
 */
export type AttemptOutcome =
  | { kind: 'success' }
  | { kind: 'retry'; nextAttemptAt: Date }
  | { kind: 'failed' }
  | { kind: 'gone' }
  | { kind: 'inactive' };

/** One attempt made and what it leads to. */
export interface AttemptResult {
  attempt: AttemptRecord;
  outcome: AttemptOutcome;
}

export interface AttemptRow {
  n: number;
  at: string;
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

export interface DeliveryRow {
  id: string;
  event: string;
  job_id: string;
  status: 'pending' | 'success' | 'failed';
  next_attempt_at: Date | null;
  created_at: Date;
  /** created_at as PostgreSQL prints it (microseconds kept): the page cursor. */
  created_key: string;
  attempts: AttemptRow[];
}

const DELIVERY_VIEW = `
  d.id, d.event, d.job_id, d.status, d.next_attempt_at, d.created_at, d.created_at::text AS created_key,
  COALESCE((SELECT json_agg(json_build_object('n', a.n, 'at', a.at, 'http_status', a.http_status,
                                              'duration_ms', a.duration_ms, 'error', a.error,
                                              'response_body', a.response_body) ORDER BY a.n)
              FROM webhooks.attempts a WHERE a.delivery_id = d.id), '[]'::json) AS attempts`;

/**
 * Deliveries and their attempts. The delivery log a customer reads (list, find, redeliver) and event intake take
 * the account (AccountId); claiming due deliveries, recording attempts and purging old ones serve only the
 * dispatcher, across accounts, with ids it claimed from the database.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * One delivery per active webhook of its account subscribed to the event, for every event of a batch, in one
   * statement. The unique key (event, webhook) makes a repeated event (a JetStream redelivery, or the same event
   * twice in the batch) add nothing. With `first.claim`, up to `max` of the deliveries are made already claimed
   * for their first attempt by the calling process, for that long (as `claimDue` claims), which saves claiming
   * them afterwards (their next attempt is, as for any claim, when the claim runs out). Returns, per event in order, the ids of the deliveries made now for it and those of them
   * made claimed, with what their attempts need.
   *
   * This commit waits for its WAL flush: the events are acknowledged on the strength of it. Rows are inserted in
   * (event, webhook) order, so two replicas given the same events cannot deadlock on the unique key; a statement
   * that loses a deadlock anyway is run again.
   */
  async createForEvents(events: readonly NewEvent[], first: FirstAttempts): Promise<EventDeliveries[]> {
    if (events.length === 0) return [];
    const eventColumns = columns(events, ['accountId', 'eventId', 'event', 'jobId', 'body', 'requestId']);
    const rows = await retryConflicts(() =>
      this.sql.rows<ClaimedDelivery & { account_id: string; event_id: string }>(
        `WITH input AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::text[])
                        AS i(account_id, event_id, event, job_id, body, request_id)),
           made AS (
             INSERT INTO webhooks.deliveries
                    (id, webhook_id, account_id, event_id, event, job_id, body, request_id, next_attempt_at,
                     attempt_count, claimed_until)
             SELECT gen_random_uuid(), w.id, w.account_id, i.event_id, i.event, i.job_id, i.body, i.request_id,
                    CASE WHEN row_number() OVER (ORDER BY i.event_id, w.id) <= $9
                         THEN now() + make_interval(secs => $8) ELSE now() + make_interval(secs => $7) END,
                    CASE WHEN row_number() OVER (ORDER BY i.event_id, w.id) <= $9 THEN 1 ELSE 0 END,
                    CASE WHEN row_number() OVER (ORDER BY i.event_id, w.id) <= $9
                         THEN now() + make_interval(secs => $8) END
               FROM input i
               JOIN webhooks.webhooks w ON w.account_id = i.account_id AND w.is_active AND i.event = ANY (w.events)
              ORDER BY i.event_id, w.id
             ON CONFLICT (event_id, webhook_id) DO NOTHING
             RETURNING id, webhook_id, account_id, event_id, event, body, attempt_count, max_attempts, request_id)
           SELECT made.*, ${SIGNING_COLUMNS}
             FROM made JOIN webhooks.webhooks w ON w.id = made.webhook_id`,
        [...eventColumns, first.delayMs / 1000, (first.claim?.ms ?? 0) / 1000, first.claim?.max ?? 0],
      ),
    );
    // Each event's deliveries go to its first occurrence in the batch; a repeat made none.
    const byEvent = new Map<string, EventDeliveries>();
    const made = events.map((e) => {
      const key = `${e.accountId}:${e.eventId}`;
      if (byEvent.has(key)) return { ids: [], claimed: [] };
      const deliveries: EventDeliveries = { ids: [], claimed: [] };
      byEvent.set(key, deliveries);
      return deliveries;
    });
    for (const { account_id, event_id, ...delivery } of rows) {
      const deliveries = byEvent.get(`${account_id}:${event_id}`)!;
      deliveries.ids.push(delivery.id);
      // A fresh delivery counts its first attempt only when it was made claimed for it.
      if (delivery.attempt_count > 0) deliveries.claimed.push(delivery);
    }
    return made;
  }

  /**
   * Claims up to `limit` deliveries whose next attempt is due, skipping rows another replica holds (FOR UPDATE
   * SKIP LOCKED), and counts the attempt. The claim lasts `leaseMs`: a process that dies mid-attempt leaves the
   * delivery to be claimed again once it runs out. The claim also moves the delivery's next attempt to its end,
   * which is when that next attempt happens should this one be lost (the outcome sets the real one): claimed
   * deliveries leave the due part of the index, so a claim does not look through the attempts in flight.
   *
   * Like the records of attempts, a claim does not wait for its WAL flush: a claim lost in a PostgreSQL crash
   * can only make an attempt that had been made be made again.
   */
  claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.sql.rows<ClaimedDelivery>(
      `WITH ${NO_FLUSH_WAIT}
         UPDATE webhooks.deliveries d
            SET attempt_count = d.attempt_count + 1, claimed_until = now() + make_interval(secs => $2),
                next_attempt_at = now() + make_interval(secs => $2)
           FROM webhooks.webhooks w, no_flush_wait
          WHERE w.id = d.webhook_id
            AND d.id IN (SELECT id FROM webhooks.deliveries
                          WHERE status = 'pending' AND next_attempt_at <= now()
                            AND (claimed_until IS NULL OR claimed_until < now())
                          ORDER BY next_attempt_at
                          LIMIT $1
                          FOR UPDATE SKIP LOCKED)
          RETURNING d.id, d.webhook_id, d.event, d.body, d.attempt_count, d.max_attempts, d.request_id,
                    ${SIGNING_COLUMNS}`,
      [limit, leaseMs / 1000],
    );
  }

  /**
   * Stores attempts and their outcomes, each as a whole: the attempt row, the delivery's state, and on a final
   * outcome the webhook's `last_delivery_*` (with the auto-disable rule, and deactivation on 410). The common
   * outcomes (delivered, to be retried, ended because the webhook went inactive) of the whole batch go in one
   * statement; each final failure in a transaction of its own. Returns, per attempt, whether it was stored:
   * false when its claim had expired and another process took the delivery over (nothing of it is stored then).
   *
   * These commits do not wait for their WAL flush (NO_FLUSH_WAIT in the batch's statement, `withoutFlushWait`
   * for a final failure's transaction). A PostgreSQL crash can lose the last few hundred milliseconds of these
   * records and nothing else: their deliveries then still hold the claim of the attempt that was made, so that
   * attempt is made again once the claim runs out, a duplicate that at-least-once delivery allows and that
   * receivers drop by `X-Webhook-Id`. Other sessions see a record as soon as it is
   * committed, so a delivery is still never claimed by two processes at once. Waiting for a flush per record
   * was the largest cost of a delivery.
   *
   * A transaction that loses a deadlock or serialization conflict anyway is run again.
   */
  async recordAttempts(
    results: readonly AttemptResult[],
    rules: { disableAfterDays: number },
  ): Promise<boolean[]> {
    if (results.length === 0) return [];
    const stored = await retryConflicts(() =>
      recordCommonOutcomes(
        this.sql,
        results.filter((r): r is CommonResult => isCommon(r.outcome)),
      ),
    );
    const recorded: boolean[] = [];
    for (const { attempt, outcome } of results) {
      if (isCommon(outcome)) recorded.push(stored.has(`${attempt.deliveryId}:${attempt.n}`));
      else
        recorded.push(
          await retryConflicts(() =>
            this.sql.transaction((tx) => recordFinalFailure(tx, attempt, outcome, rules), {
              withoutFlushWait: true,
            }),
          ),
        );
    }
    return recorded;
  }

  /**
   * Gives back claims whose attempt was not started (the process is stopping, or the attempt could no longer
   * finish within its claim), so that any process can claim them again at once.
   */
  async release(claims: ReadonlyArray<{ id: string; attempt_count: number }>): Promise<void> {
    if (claims.length === 0) return;
    await this.sql.affected(
      `UPDATE webhooks.deliveries d
          SET attempt_count = d.attempt_count - 1, claimed_until = NULL, next_attempt_at = now()
         FROM unnest($1::uuid[], $2::int[]) AS r(id, n)
        WHERE d.id = r.id AND d.attempt_count = r.n AND d.status = 'pending'`,
      [claims.map((c) => c.id), claims.map((c) => c.attempt_count)],
    );
  }

  /** A page of the webhook's delivery log, newest first; `after` is the last row of the previous page. */
  list(
    accountId: AccountId,
    webhookId: string,
    limit: number,
    after?: { createdKey: string; id: string },
  ): Promise<DeliveryRow[]> {
    return this.sql.rows<DeliveryRow>(
      `SELECT ${DELIVERY_VIEW}
         FROM webhooks.deliveries d
        WHERE d.account_id = $1 AND d.webhook_id = $2
          AND ($3::timestamptz IS NULL OR (d.created_at, d.id) < ($3::timestamptz, $4::uuid))
        ORDER BY d.created_at DESC, d.id DESC
        LIMIT $5`,
      [accountId, webhookId, after?.createdKey ?? null, after?.id ?? null, limit],
    );
  }

  find(accountId: AccountId, webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
    return this.sql.one<DeliveryRow>(
      `SELECT ${DELIVERY_VIEW} FROM webhooks.deliveries d
        WHERE d.account_id = $1 AND d.webhook_id = $2 AND d.id = $3`,
      [accountId, webhookId, deliveryId],
    );
  }

  /**
   * Makes one more attempt of a delivery due now, with the same id and body. A delivery that had ended gets
   * exactly one more attempt; one still pending keeps its remaining attempts and is simply brought forward.
   */
  async redeliver(accountId: AccountId, webhookId: string, deliveryId: string): Promise<boolean> {
    const redelivered = await this.sql.affected(
      `UPDATE webhooks.deliveries
            SET max_attempts = CASE WHEN status = 'pending' THEN max_attempts ELSE attempt_count + 1 END,
                status = 'pending',
                next_attempt_at = now()
          WHERE account_id = $1 AND webhook_id = $2 AND id = $3`,
      [accountId, webhookId, deliveryId],
    );
    return redelivered > 0;
  }

  /** Removes ended deliveries older than the retention period (their attempts go with them). */
  deleteEndedBefore(days: number): Promise<number> {
    return this.sql.affected(
      `DELETE FROM webhooks.deliveries
        WHERE created_at < now() - make_interval(days => $1) AND status <> 'pending'`,
      [days],
    );
  }
}

/** Runs `work` again (at most twice) when PostgreSQL aborted it in a deadlock or serialization conflict. */
async function retryConflicts<T>(work: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await work();
    } catch (err) {
      if (tries >= 3 || !isConflictAbort(err)) throw err;
    }
  }
}

type CommonOutcome = Extract<AttemptOutcome, { kind: 'success' | 'retry' | 'inactive' }>;
type CommonResult = { attempt: AttemptRecord; outcome: CommonOutcome };

/** Delivered, to be retried, or ended because the webhook went inactive: the outcomes of nearly every attempt. */
function isCommon(outcome: AttemptOutcome): outcome is CommonOutcome {
  switch (outcome.kind) {
    case 'success':
    case 'retry':
    case 'inactive':
      return true;
    case 'failed':
    case 'gone':
      return false;
  }
}

/**
 * The common outcomes of many attempts in one statement: each delivery's state, its attempt row and, on
 * success, the webhook's last outcome. Returns `<delivery id>:<attempt number>` of the attempts stored.
 *
 * The webhooks' rows are locked in id order before they are updated: statements of two replicas that update
 * the same webhooks in different orders would deadlock.
 */
async function recordCommonOutcomes(m: Queryable, results: readonly CommonResult[]): Promise<Set<string>> {
  if (results.length === 0) return new Set();
  const inputColumns: unknown[][] = Array.from({ length: 10 }, () => []);
  for (const { attempt: a, outcome: o } of results) {
    const row = [
      a.deliveryId,
      a.n,
      o.kind === 'success' ? 'success' : o.kind === 'retry' ? 'pending' : 'failed',
      o.kind === 'retry' ? o.nextAttemptAt : null,
      a.at,
      a.httpStatus,
      Math.round(a.durationMs),
      a.error,
      a.responseBody,
      a.webhookId,
    ];
    row.forEach((value, i) => inputColumns[i]!.push(value));
  }
  const rows = await m.rows<{ id: string; n: number }>(
    `WITH ${NO_FLUSH_WAIT},
       input AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::timestamptz[], $5::timestamptz[],
                              $6::int[], $7::int[], $8::text[], $9::text[], $10::uuid[])
                    AS i(delivery_id, n, status, next_attempt_at, at, http_status, duration_ms, error, response_body,
                         webhook_id)),
       locked AS MATERIALIZED (
         SELECT id FROM webhooks.webhooks
          WHERE id IN (SELECT webhook_id FROM input WHERE status = 'success')
          ORDER BY id
          FOR NO KEY UPDATE),
       moved AS (
         UPDATE webhooks.deliveries d
            SET status = i.status, next_attempt_at = i.next_attempt_at, claimed_until = NULL
           FROM input i
          WHERE d.id = i.delivery_id AND d.attempt_count = i.n AND d.status = 'pending'
          RETURNING d.id, d.webhook_id, i.status, i.n, i.at, i.http_status, i.duration_ms, i.error, i.response_body),
       attempt AS (
         INSERT INTO webhooks.attempts (delivery_id, n, at, http_status, duration_ms, error, response_body)
         SELECT id, n, at, http_status, duration_ms, error, response_body FROM moved
         ON CONFLICT DO NOTHING),
       delivered AS (
         UPDATE webhooks.webhooks
            SET last_delivery_status = 'success', last_delivery_at = now(), last_error = NULL,
                failing_since = NULL
          WHERE id IN (SELECT id FROM locked) AND id IN (SELECT webhook_id FROM moved WHERE status = 'success'))
       SELECT moved.id, moved.n FROM moved, no_flush_wait`,
    inputColumns,
  );
  return new Set(rows.map((r) => `${r.id}:${r.n}`));
}

/**
 * The final failures (the last attempt failed, or the receiver answered 410): the delivery ends `failed` and
 * the webhook's last outcome says why, with the auto-disable rule, or deactivation on 410.
 */
async function recordFinalFailure(
  m: Queryable,
  attempt: AttemptRecord,
  outcome: Extract<AttemptOutcome, { kind: 'failed' | 'gone' }>,
  rules: { disableAfterDays: number },
): Promise<boolean> {
  const ended = await m.affected(
    `UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
      WHERE id = $1 AND attempt_count = $2 AND status = 'pending'`,
    [attempt.deliveryId, attempt.n],
  );
  if (ended === 0) return false;
  await m.affected(
    `INSERT INTO webhooks.attempts (delivery_id, n, at, http_status, duration_ms, error, response_body)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [
      attempt.deliveryId,
      attempt.n,
      attempt.at,
      attempt.httpStatus,
      Math.round(attempt.durationMs),
      attempt.error,
      attempt.responseBody,
    ],
  );
  switch (outcome.kind) {
    case 'failed': {
      const webhook = await m.one<{ is_active: boolean }>(
        `UPDATE webhooks.webhooks
              SET last_delivery_status = 'failed', last_delivery_at = now(),
                  failing_since = COALESCE(failing_since, now()),
                  is_active = is_active AND COALESCE(failing_since, now()) > now() - make_interval(days => $3),
                  last_error = CASE
                    WHEN is_active AND COALESCE(failing_since, now()) <= now() - make_interval(days => $3)
                    THEN $4 ELSE $2 END
            WHERE id = $1
            RETURNING is_active`,
        [
          attempt.webhookId,
          attempt.error,
          rules.disableAfterDays,
          `Deactivated: every delivery failed for ${rules.disableAfterDays} days with no success. Last error: ${attempt.error ?? 'unknown'}`,
        ],
      );
      if (webhook && !webhook.is_active) await endPendingDeliveries(m, attempt.webhookId);
      break;
    }
    case 'gone':
      await m.affected(
        `UPDATE webhooks.webhooks
            SET last_delivery_status = 'failed', last_delivery_at = now(), last_error = $2,
                is_active = false, updated_at = now()
          WHERE id = $1`,
        [attempt.webhookId, attempt.error],
      );
      await endPendingDeliveries(m, attempt.webhookId);
      break;
  }
  return true;
}

/**
 * An inactive webhook receives nothing: its deliveries still waiting end as failed, in the caller's transaction
 * (one whose attempt is in flight ends with that attempt's outcome).
 */
export async function endPendingDeliveries(m: Queryable, webhookId: string): Promise<void> {
  await m.affected(
    `UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL
      WHERE webhook_id = $1 AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < now())`,
    [webhookId],
  );
}
