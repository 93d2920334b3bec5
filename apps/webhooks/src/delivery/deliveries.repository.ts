import { Injectable } from '@nestjs/common';
import type { AccountId } from '@emailverify/contracts';
import { columns, isConflictAbort, type Queryable, Sql } from '@emailverify/persistence';
import { afterAttempt, type BreakerChange, type BreakerState } from './breaker';
import { autoDisable } from './outcome';

/** An event to be turned into deliveries. */
export interface NewEvent {
  accountId: AccountId;
  eventId: string;
  event: string;
  jobId: string;
  body: string;
  requestId: string | null;
}

/** The deliveries made for one event: their ids (none when the event had been seen already). */
export interface EventDeliveries {
  ids: string[];
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
   * statement, the first attempt due after `delayMs`. The unique key (event, webhook) makes a repeated event (a
   * JetStream redelivery, or the same event twice in the batch) add nothing. Returns, per event in order, the
   * ids of the deliveries made now for it.
   *
   * This commit waits for its WAL flush: the events are acknowledged on the strength of it. Rows are inserted in
   * (event, webhook) order, so two replicas given the same events cannot deadlock on the unique key; a statement
   * that loses a deadlock anyway is run again.
   */
  async createForEvents(events: readonly NewEvent[], delayMs: number): Promise<EventDeliveries[]> {
    if (events.length === 0) return [];
    const eventColumns = columns(events, ['accountId', 'eventId', 'event', 'jobId', 'body', 'requestId']);
    const rows = await retryConflicts(() =>
      this.sql.rows<{ id: string; account_id: string; event_id: string }>(
        `WITH input AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::text[])
                        AS i(account_id, event_id, event, job_id, body, request_id))
         INSERT INTO webhooks.deliveries
                (id, webhook_id, account_id, event_id, event, job_id, body, request_id, next_attempt_at)
         SELECT gen_random_uuid(), w.id, w.account_id, i.event_id, i.event, i.job_id, i.body, i.request_id,
                now() + make_interval(secs => $7)
           FROM input i
           JOIN webhooks.webhooks w ON w.account_id = i.account_id AND w.is_active AND i.event = ANY (w.events)
          ORDER BY i.event_id, w.id
         ON CONFLICT (event_id, webhook_id) DO NOTHING
         RETURNING id, account_id, event_id`,
        [...eventColumns, delayMs / 1000],
      ),
    );
    // Each event's deliveries go to its first occurrence in the batch; a repeat made none.
    const byEvent = new Map<string, EventDeliveries>();
    const made = events.map((e) => {
      const key = `${e.accountId}:${e.eventId}`;
      if (byEvent.has(key)) return { ids: [] };
      const deliveries: EventDeliveries = { ids: [] };
      byEvent.set(key, deliveries);
      return deliveries;
    });
    for (const { id, account_id, event_id } of rows) byEvent.get(`${account_id}:${event_id}`)!.ids.push(id);
    return made;
  }

  /**
   * Claims up to `limit` deliveries whose next attempt is due and counts the attempt, with at most `perWebhook`
   * attempts in flight to one webhook across all processes, and none to a webhook whose breaker is open (one,
   * the probe, once its probe time has come). The claim lasts `leaseMs`: a process that dies mid-attempt leaves
   * the delivery to be claimed again once it runs out. The claim also moves the delivery's next attempt to its
   * end, which is when that next attempt happens should this one be lost (the outcome sets the real one).
   *
   * The cap holds across replicas because a claim first locks the rows of the webhooks it claims for (FOR NO
   * KEY UPDATE SKIP LOCKED: a webhook another process is claiming for is left to it) and only then, in a second
   * statement that sees every claim committed before, counts the webhook's attempts in flight. Webhooks are
   * taken oldest due delivery first, skipping those at their cap or with an open breaker, so a webhook that
   * hangs holds no more than its cap and delays no other webhook's deliveries.
   *
   * Like the records of attempts, a claim does not wait for its WAL flush: a claim lost in a PostgreSQL crash
   * can only make an attempt that had been made be made again.
   */
  claimDue(limit: number, leaseMs: number, perWebhook: number): Promise<ClaimedDelivery[]> {
    return this.sql.transaction(
      async (tx) => {
        const webhooks = await tx.rows<{ id: string }>(
          `SELECT w.id
             FROM webhooks.webhooks w
             JOIN (SELECT webhook_id, min(next_attempt_at) AS due FROM webhooks.deliveries
                    WHERE status = 'pending' AND next_attempt_at <= now()
                    GROUP BY webhook_id) d ON d.webhook_id = w.id
            WHERE (w.breaker_retry_at IS NULL OR w.breaker_retry_at <= now())
              AND (SELECT count(*) FROM webhooks.deliveries f
                    WHERE f.webhook_id = w.id AND f.status = 'pending' AND f.claimed_until > now())
                  < CASE WHEN w.breaker_opened_at IS NULL THEN $2 ELSE 1 END
            ORDER BY d.due
            LIMIT $1
            FOR NO KEY UPDATE OF w SKIP LOCKED`,
          [limit, perWebhook],
        );
        if (webhooks.length === 0) return [];
        return tx.rows<ClaimedDelivery>(
          `WITH room AS (
               SELECT w.id, CASE WHEN w.breaker_opened_at IS NULL THEN $3 ELSE 1 END
                            - (SELECT count(*) FROM webhooks.deliveries f
                                WHERE f.webhook_id = w.id AND f.status = 'pending' AND f.claimed_until > now())
                            AS room
                 FROM webhooks.webhooks w
                WHERE w.id = ANY ($1::uuid[])
                  AND (w.breaker_retry_at IS NULL OR w.breaker_retry_at <= now())),
             due AS (
               SELECT c.id, c.next_attempt_at
                 FROM room r
                 CROSS JOIN LATERAL (
                   SELECT d.id, d.next_attempt_at FROM webhooks.deliveries d
                    WHERE d.webhook_id = r.id AND d.status = 'pending' AND d.next_attempt_at <= now()
                      AND (d.claimed_until IS NULL OR d.claimed_until < now())
                    ORDER BY d.next_attempt_at
                    LIMIT greatest(r.room, 0)) c
                ORDER BY c.next_attempt_at
                LIMIT $2),
             picked AS (
               SELECT id FROM webhooks.deliveries
                WHERE id IN (SELECT id FROM due)
                  AND status = 'pending' AND next_attempt_at <= now()
                  AND (claimed_until IS NULL OR claimed_until < now())
                FOR UPDATE SKIP LOCKED)
           UPDATE webhooks.deliveries d
              SET attempt_count = d.attempt_count + 1, claimed_until = now() + make_interval(secs => $4),
                  next_attempt_at = now() + make_interval(secs => $4)
             FROM webhooks.webhooks w
            WHERE w.id = d.webhook_id AND d.id IN (SELECT id FROM picked)
            RETURNING d.id, d.webhook_id, d.event, d.body, d.attempt_count, d.max_attempts, d.request_id,
                      ${SIGNING_COLUMNS}`,
          [webhooks.map((w) => w.id), limit, perWebhook, leaseMs / 1000],
        );
      },
      { withoutFlushWait: true },
    );
  }

  /**
   * Stores one attempt and its outcome as a whole, in one transaction: the attempt row, the delivery's state,
   * and on its webhook the last final outcome (`last_delivery_*`, with the auto-disable rule, and deactivation
   * on 410) and the circuit breaker (a 2xx or a failed attempt counts; `breakerFailures` in a row open it).
   * Returns whether it was stored (false when its claim had expired and another process took the delivery over:
   * nothing of it is stored then) and what the breaker did. The breaker's clock is PostgreSQL's, as the
   * claim's is.
   *
   * The commit does not wait for its WAL flush. A PostgreSQL crash can lose the last few hundred milliseconds of
   * these records and nothing else: their deliveries then still hold the claim of the attempt that was made, so
   * that attempt is made again once the claim runs out, a duplicate that at-least-once delivery allows and that
   * receivers drop by `X-Webhook-Id`. Other sessions see a record as soon as it is committed, so a delivery is
   * still never claimed by two processes at once. A transaction that loses a deadlock is run again.
   */
  recordAttempt(
    { attempt, outcome }: AttemptResult,
    rules: { disableAfterDays: number; breakerFailures: number },
  ): Promise<{ recorded: boolean; breaker: BreakerChange }> {
    return retryConflicts(() =>
      this.sql.transaction((tx) => recordAttempt(tx, attempt, outcome, rules), { withoutFlushWait: true }),
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
   * When the webhook's breaker is open, its probe is brought forward to now as well: a customer who redelivers
   * has usually just fixed the receiver.
   */
  async redeliver(accountId: AccountId, webhookId: string, deliveryId: string): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const redelivered = await tx.affected(
        `UPDATE webhooks.deliveries
              SET max_attempts = CASE WHEN status = 'pending' THEN max_attempts ELSE attempt_count + 1 END,
                  status = 'pending',
                  next_attempt_at = now()
            WHERE account_id = $1 AND webhook_id = $2 AND id = $3`,
        [accountId, webhookId, deliveryId],
      );
      if (redelivered === 0) return false;
      await tx.affected(
        `UPDATE webhooks.webhooks SET breaker_retry_at = now()
          WHERE account_id = $1 AND id = $2 AND breaker_retry_at > now()`,
        [accountId, webhookId],
      );
      return true;
    });
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

/** The delivery's status after an attempt's outcome. */
const STATUS_AFTER: Record<AttemptOutcome['kind'], DeliveryRow['status']> = {
  success: 'success',
  retry: 'pending',
  failed: 'failed',
  gone: 'failed',
  inactive: 'failed',
};

async function recordAttempt(
  m: Queryable,
  attempt: AttemptRecord,
  outcome: AttemptOutcome,
  rules: { disableAfterDays: number; breakerFailures: number },
): Promise<{ recorded: boolean; breaker: BreakerChange }> {
  // The delivery's state and its attempt row, in one statement: nothing when the claim was taken over.
  const [moved] = await m.rows<{ n: number }>(
    `WITH moved AS (
       UPDATE webhooks.deliveries SET status = $3, next_attempt_at = $4, claimed_until = NULL
        WHERE id = $1 AND attempt_count = $2 AND status = 'pending'
        RETURNING id),
     attempt AS (
       INSERT INTO webhooks.attempts (delivery_id, n, at, http_status, duration_ms, error, response_body)
       SELECT id, $2, $5, $6, $7, $8, $9 FROM moved
       ON CONFLICT DO NOTHING)
     SELECT count(*)::int AS n FROM moved`,
    [
      attempt.deliveryId,
      attempt.n,
      STATUS_AFTER[outcome.kind],
      outcome.kind === 'retry' ? outcome.nextAttemptAt : null,
      attempt.at,
      attempt.httpStatus,
      Math.round(attempt.durationMs),
      attempt.error,
      attempt.responseBody,
    ],
  );
  if (!moved || moved.n === 0) return { recorded: false, breaker: 'none' };
  if (outcome.kind === 'inactive') return { recorded: true, breaker: 'none' };
  const webhook = await m.one<
    BreakerRow & { is_active: boolean; failing_since: Date | null; now_ms: number }
  >(
    `SELECT is_active, failing_since, consecutive_failures, breaker_opened_at, breaker_pause_ms, breaker_retry_at,
            (extract(epoch FROM now()) * 1000)::float8 AS now_ms
       FROM webhooks.webhooks WHERE id = $1 FOR NO KEY UPDATE`,
    [attempt.webhookId],
  );
  if (!webhook) return { recorded: true, breaker: 'none' };
  if (outcome.kind === 'gone') {
    // A 410 ends the webhook: its breaker has nothing more to count.
    await m.affected(
      `UPDATE webhooks.webhooks
          SET last_delivery_status = 'failed', last_delivery_at = now(), last_error = $2,
              is_active = false, updated_at = now()
        WHERE id = $1`,
      [attempt.webhookId, attempt.error],
    );
    await endPendingDeliveries(m, attempt.webhookId);
    return { recorded: true, breaker: 'none' };
  }
  const { state: breaker, change } = afterAttempt(
    breakerState(webhook),
    outcome.kind === 'success',
    webhook.now_ms,
    rules.breakerFailures,
  );
  // The final outcome (a retry is not final) and the breaker, in one statement.
  let final: { status: 'success' | 'failed'; error: string | null; deactivate: boolean } | null = null;
  if (outcome.kind === 'success') final = { status: 'success', error: null, deactivate: false };
  else if (outcome.kind === 'failed') {
    const { deactivate, lastError } = autoDisable(
      { isActive: webhook.is_active, failingSince: webhook.failing_since },
      attempt.error,
      webhook.now_ms,
      rules.disableAfterDays,
    );
    final = { status: 'failed', error: lastError, deactivate };
  }
  await m.affected(
    `UPDATE webhooks.webhooks
        SET consecutive_failures = $2, breaker_opened_at = $3, breaker_pause_ms = $4, breaker_retry_at = $5,
            last_delivery_status = COALESCE($6, last_delivery_status),
            last_delivery_at = CASE WHEN $6::text IS NULL THEN last_delivery_at ELSE now() END,
            last_error = CASE WHEN $6::text IS NULL THEN last_error ELSE $7 END,
            failing_since = CASE $6::text WHEN 'success' THEN NULL
                                          WHEN 'failed' THEN COALESCE(failing_since, now())
                                          ELSE failing_since END,
            is_active = is_active AND NOT $8::boolean
      WHERE id = $1`,
    [
      attempt.webhookId,
      breaker.consecutiveFailures,
      breaker.openedAt,
      breaker.pauseMs,
      breaker.retryAt,
      final?.status ?? null,
      final?.error ?? null,
      final?.deactivate ?? false,
    ],
  );
  if (outcome.kind === 'failed' && (final?.deactivate || !webhook.is_active))
    await endPendingDeliveries(m, attempt.webhookId);
  return { recorded: true, breaker: change };
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

/** A webhook's breaker columns. */
export interface BreakerRow {
  consecutive_failures: number;
  breaker_opened_at: Date | null;
  breaker_pause_ms: number | null;
  breaker_retry_at: Date | null;
}

/** The breaker stored in a webhook's row. */
export function breakerState(row: BreakerRow): BreakerState {
  return {
    consecutiveFailures: row.consecutive_failures,
    openedAt: row.breaker_opened_at,
    pauseMs: row.breaker_pause_ms,
    retryAt: row.breaker_retry_at,
  };
}
