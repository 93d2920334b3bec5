import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { withRequestId } from '@emailverify/messaging';
import { Batches, LOGGER, Metrics } from '@emailverify/service-kit';
import type { Counter, Histogram } from 'prom-client';
import type { Logger } from 'pino';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from '../config';
import { webhooksMetrics } from '../webhooks.metrics';
import { SecretBox } from '../webhooks/secret-box';
import {
  type AttemptOutcome,
  type AttemptResult,
  type ClaimedDelivery,
  DeliveriesRepository,
} from './deliveries.repository';
import type { FreshClaim, FreshDeliveries } from './event-intake';
import { HttpSender, type SendResult } from './http-sender';
import { judgeAttempt } from './outcome';
import { deliveryHeaders, type SigningKeys, signingKeys } from './signing';

export interface DispatcherOptions {
  /** Delay before each attempt (the first is used when a delivery is made). */
  schedule: readonly number[];
  concurrency: number;
  pollIntervalMs: number;
  timeoutMs: number;
  disableAfterDays: number;
}

export interface DispatcherMetrics {
  attempts: Counter<'outcome'>;
  attemptSeconds: Histogram<'outcome'>;
}

/** Room for resolution and recording around the HTTP exchange itself, within one claim. */
const LEASE_MARGIN_MS = 30_000;
/** A claimed attempt must start within this long of its claim, so that it ends well within the claim. */
const START_WITHIN_MS = LEASE_MARGIN_MS / 2;

/**
 * Claimed deliveries waiting for a slot: at most this many times the concurrency. Enough that the slots stay
 * busy while the next deliveries are being made (a statement that waits for its WAL flush, slow on a busy
 * database); a process whose attempts run slow gives back what it could not start within START_WITHIN_MS.
 */
const AHEAD = 12;
/** Claimed deliveries held in all (waiting, being sent, outcome being stored): at most this many times the concurrency. */
const HOLD = 20;
/** Signing keys kept ready, one set per webhook, at most this many. */
const KEPT_KEYS = 10_000;
/** The most attempts one statement stores. */
const MAX_RECORD_BATCH = 256;
/**
 * A batch of outcomes smaller than this is stored GATHER_MS later, which makes the next batch larger: most of
 * PostgreSQL's work in storing a batch is the same whatever its size, and an outcome stored a little later
 * holds up no attempt (its slot is free already; only its claim is held meanwhile).
 */
const GATHER_BELOW = 64;
const GATHER_MS = 20;

/** The metric series of one outcome. */
interface OutcomeSeries {
  attempts: { inc(): void };
  seconds: { observe(value: number): void };
}

/** A delivery claimed ahead of a free slot, and the time (this process's clock) by which it must start. */
interface Claimed {
  delivery: ClaimedDelivery;
  startBy: number;
}

/**
 * Makes the attempts that are due. Deliveries live in PostgreSQL; each replica claims due ones (FOR UPDATE SKIP
 * LOCKED, so every attempt is made by one process), POSTs them, and records the outcome with the next attempt's
 * time. A fresh delivery is attempted at once (made claimed for this process and adopted, or `kick`); retries are
 * found by polling.
 *
 * Up to `concurrency` HTTP exchanges run at a time. Claims are made ahead of need, in batches: while the slots
 * are busy, the next deliveries are already claimed and wait in memory, so a slot that frees up starts the next
 * attempt without a round trip to the database. An attempt's slot is freed as soon as its HTTP exchange is
 * over; its outcome is stored with others in the next batch (`recordAttempts`), and its claim lasts until
 * then. A process holds at most AHEAD times `concurrency` claimed deliveries waiting to start, and HOLD times in
 * all (waiting, being sent, or waiting for their outcome to be stored). A process killed meanwhile leaves them
 * claimed until their claims run out, then they are attempted again; a process that stops gives back those it
 * had not started.
 */
@Injectable()
export class Dispatcher implements FreshDeliveries {
  /** Attempts from their start until their outcome is stored (or could not be). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed deliveries waiting for a slot, oldest claim first. */
  private readonly ready: Claimed[] = [];
  /** HTTP exchanges running. */
  private sending = 0;
  /** Outcomes of attempts, stored in batches: per attempt, whether it was stored (its claim still held). */
  private readonly recorder: Batches<AttemptResult, boolean>;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private claiming = false;
  /** The last claim found fewer due deliveries than it asked for: no more claims until the next kick. */
  private drained = false;
  /** Kicks so far: a claim that started before the latest kick may have missed what that kick announced. */
  private kicks = 0;
  private claim?: Promise<void>;
  /** Event intake waiting for room to make fresh deliveries claimed (`room`): how many it wants, and its answer. */
  private roomWaiter?: { wanted: number; grant: (claim: FreshClaim | undefined) => void };
  private readonly series = new Map<AttemptOutcome['kind'], OutcomeSeries>();
  /**
   * Webhook id -> its sealed secrets and the signing keys they open to (a changed sealed secret, after a
   * rotation or a re-encryption, is opened afresh).
   */
  private readonly keys = new Map<
    string,
    { sealed: Buffer; previousSealed: Buffer | null; keys: { keys: SigningKeys; previous?: SigningKeys } }
  >();
  private readonly options: DispatcherOptions;
  private readonly metrics: DispatcherMetrics;

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly sender: HttpSender,
    private readonly box: SecretBox,
    @Inject(WEBHOOKS_CONFIG) config: Readonly<WebhooksConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.options = {
      schedule: config.WEBHOOK_RETRY_SCHEDULE,
      concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      disableAfterDays: config.WEBHOOK_DISABLE_AFTER_DAYS,
    };
    this.metrics = webhooksMetrics(metrics);
    const rules = { disableAfterDays: this.options.disableAfterDays };
    this.recorder = new Batches(async (results) => {
      // A small batch waits a moment, so that the next one gathers the outcomes that come meanwhile.
      if (results.length < GATHER_BELOW && !this.stopped) await sleep(GATHER_MS);
      return repo.recordAttempts(results, rules);
    }, MAX_RECORD_BATCH);
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for due attempts now (after new deliveries, a redelivery, a poll tick). */
  kick(): void {
    this.kicks++;
    this.drained = false;
    this.fill();
  }

  /**
   * Fresh deliveries may be made claimed for this process as far as it has room for them, leaving room for one
   * claim of `concurrency` so that due retries are not held back by a stream of fresh deliveries.
   */
  freshClaim(): FreshClaim | undefined {
    const concurrency = this.options.concurrency;
    const max = Math.min(
      (HOLD - 1) * concurrency - this.held(),
      (AHEAD - 1) * concurrency - this.ready.length,
    );
    if (this.stopped || max <= 0) return undefined;
    return { ms: this.options.timeoutMs + LEASE_MARGIN_MS, max };
  }

  /**
   * Waits until this process has room for `wanted` fresh deliveries made claimed (or for twice `concurrency` of
   * them, when more are wanted: a statement's worth, while what is claimed already keeps the slots busy), and answers with what `freshClaim` allows then; at `deadline`, or when the process
   * stops, with what it allows at that moment, which may be nothing. One caller waits at a time.
   */
  room(wanted: number, deadline: number): Promise<FreshClaim | undefined> {
    const enough = Math.min(wanted, 2 * this.options.concurrency);
    const now = this.freshClaim();
    const wait = deadline - Date.now();
    if (this.stopped || (now && now.max >= enough) || wait <= 0 || this.roomWaiter)
      return Promise.resolve(now);
    return new Promise((resolve) => {
      const timer = setTimeout(() => grant(this.freshClaim()), wait);
      const grant = (claim: FreshClaim | undefined) => {
        clearTimeout(timer);
        this.roomWaiter = undefined;
        resolve(claim);
      };
      this.roomWaiter = { wanted: enough, grant };
    });
  }

  adopt(claimed: ClaimedDelivery[], claimedAt: number): void {
    if (this.stopped) {
      void this.giveBack(claimed);
      return;
    }
    for (const delivery of claimed) this.ready.push({ delivery, startBy: claimedAt + START_WITHIN_MS });
    this.fill();
  }

  /**
   * Stops claiming, gives back the claims not started, and waits for the attempts in flight to be recorded.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.roomWaiter?.grant(undefined);
    await this.claim;
    await this.giveBack(this.ready.splice(0).map((c) => c.delivery));
    await Promise.allSettled([...this.inFlight]);
    await this.recorder.flush();
  }

  /** Gives back claims not started; should that fail, they are attempted again once their claims run out. */
  private async giveBack(deliveries: ClaimedDelivery[]): Promise<void> {
    try {
      await this.repo.release(deliveries);
    } catch (err) {
      this.logger.warn({ err }, 'claimed webhook deliveries could not be given back; their claims run out');
    }
  }

  /** Claimed deliveries this process holds: waiting to start, being sent, or waiting for their outcome to be stored. */
  private held(): number {
    return this.ready.length + this.sending + this.recorder.pending;
  }

  /** Starts waiting attempts in the free slots, and claims more when it is time. */
  private fill(): void {
    if (this.stopped) return;
    const stale: ClaimedDelivery[] = [];
    while (this.sending < this.options.concurrency && this.ready.length > 0) {
      const next = this.ready.shift()!;
      if (Date.now() > next.startBy) stale.push(next.delivery);
      else this.launch(next.delivery);
    }
    if (stale.length > 0)
      // They could no longer finish within their claims: given back, to be claimed afresh.
      void this.giveBack(stale);
    if (this.roomWaiter) {
      const claim = this.freshClaim();
      if (claim && claim.max >= this.roomWaiter.wanted) this.roomWaiter.grant(claim);
    }
    if (this.claiming || this.drained) return;
    const concurrency = this.options.concurrency;
    const room = Math.min(HOLD * concurrency - this.held(), AHEAD * concurrency - this.ready.length);
    // Claims go in batches of at least `concurrency` (each claim looks through the due deliveries once), or at
    // once, of any size, when a slot would otherwise stay idle.
    const idleSlot = this.ready.length === 0 && this.sending < concurrency;
    if (room <= 0 || (!idleSlot && room < concurrency)) return;
    this.claiming = true;
    const startBy = Date.now() + START_WITHIN_MS;
    const kicks = this.kicks;
    this.claim = this.repo
      .claimDue(room, this.options.timeoutMs + LEASE_MARGIN_MS)
      .then(
        (claimed) => {
          for (const delivery of claimed) this.ready.push({ delivery, startBy });
          if (claimed.length < room && this.kicks === kicks) this.drained = true;
        },
        (err: unknown) => {
          this.drained = true; // the next poll tries again
          this.logger.warn({ err }, 'looking for due webhook deliveries failed');
        },
      )
      .finally(() => {
        this.claiming = false;
        this.fill();
      });
  }

  private launch(delivery: ClaimedDelivery): void {
    this.sending++;
    const attempt = () => this.attempt(delivery);
    // The attempt's lines name the request that caused its event.
    const task = (delivery.request_id ? withRequestId(delivery.request_id, attempt) : attempt())
      .catch((err: unknown) =>
        // Nothing was recorded: the claim runs out and another attempt is made then.
        this.logger.error({ err, deliveryId: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        this.inFlight.delete(task);
        this.fill();
      });
    this.inFlight.add(task);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const at = new Date();
    const n = delivery.attempt_count;
    let result: SendResult;
    try {
      result = await this.send(delivery);
    } finally {
      this.sending--;
    }
    const { outcome, error } = judgeAttempt(
      result,
      { n, maxAttempts: delivery.max_attempts, isActive: delivery.is_active },
      this.options.schedule,
      Date.now(),
    );
    const recording = this.recorder.add({
      attempt: {
        deliveryId: delivery.id,
        webhookId: delivery.webhook_id,
        n,
        at,
        httpStatus: result.status,
        durationMs: result.durationMs,
        error,
        responseBody: result.body,
      },
      outcome,
    });
    this.fill(); // the slot is free: the next attempt need not wait for this one's record
    const recorded = await recording;
    const series = this.seriesOf(outcome.kind);
    series.attempts.inc();
    series.seconds.observe(result.durationMs / 1000);
    this.logger.info(
      {
        requestId: delivery.request_id ?? undefined,
        deliveryId: delivery.id,
        webhookId: delivery.webhook_id,
        event: delivery.event,
        attempt: n,
        status: result.status,
        outcome: outcome.kind,
        ms: Math.round(result.durationMs),
        ...(error ? { error } : {}),
        ...(recorded ? {} : { stale: true }),
      },
      'webhook attempt',
    );
  }

  /** The HTTP exchange of one attempt: signed afresh, to the address checked now. */
  private async send(delivery: ClaimedDelivery): Promise<SendResult> {
    if (!delivery.is_active)
      return {
        status: null,
        retryAfter: undefined,
        body: null,
        error: 'not sent: the webhook is inactive',
        durationMs: 0,
      };
    const headers = deliveryHeaders({
      deliveryId: delivery.id,
      event: delivery.event,
      body: delivery.body,
      ...this.keysOf(delivery),
      timestamp: Math.floor(Date.now() / 1000),
    });
    return this.sender.post(delivery.url, headers, delivery.body);
  }

  /** The metric series of an outcome, looked up once rather than by its labels at every attempt. */
  private seriesOf(kind: AttemptOutcome['kind']): OutcomeSeries {
    let series = this.series.get(kind);
    if (!series) {
      series = {
        attempts: this.metrics.attempts.labels({ outcome: kind }),
        seconds: this.metrics.attemptSeconds.labels({ outcome: kind }),
      };
      this.series.set(kind, series);
    }
    return series;
  }

  /** The webhook's signing keys (and the rotated-out ones while they sign), made once per webhook. */
  private keysOf(delivery: ClaimedDelivery): { keys: SigningKeys; previous?: SigningKeys } {
    const { webhook_id: id, secret_sealed: sealed, previous_secret_sealed: previousSealed } = delivery;
    const known = this.keys.get(id);
    const samePrevious =
      known &&
      (known.previousSealed && previousSealed
        ? known.previousSealed.equals(previousSealed)
        : known.previousSealed === previousSealed);
    if (known && samePrevious && known.sealed.equals(sealed)) return known.keys;
    const open = (stored: Buffer) => signingKeys(this.box.open(stored, id, delivery.secret_key_id));
    const keys = { keys: open(sealed), ...(previousSealed ? { previous: open(previousSealed) } : {}) };
    if (this.keys.size >= KEPT_KEYS) this.keys.clear();
    this.keys.set(id, { sealed, previousSealed, keys });
    return keys;
  }
}
