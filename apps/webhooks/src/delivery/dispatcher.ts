import { Inject, Injectable } from '@nestjs/common';
import { withRequestId } from '@emailverify/messaging';
import { LOGGER, Metrics } from '@emailverify/service-kit';
import type { Counter, Histogram } from 'prom-client';
import type { Logger } from 'pino';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from '../config';
import { webhooksMetrics } from '../webhooks.metrics';
import { SecretBox } from '../webhooks/secret-box';
import { type ClaimedDelivery, DeliveriesRepository } from './deliveries.repository';
import { HttpSender, type SendResult } from './http-sender';
import { judgeAttempt } from './outcome';
import { deliveryHeaders, type SigningKeys, signingKeys } from './signing';

export interface DispatcherOptions {
  /** Delay before each attempt (the first is used when a delivery is made). */
  schedule: readonly number[];
  concurrency: number;
  perWebhook: number;
  breakerFailures: number;
  pollIntervalMs: number;
  timeoutMs: number;
  disableAfterDays: number;
}

export interface DispatcherMetrics {
  attempts: Counter<'outcome'>;
  attemptSeconds: Histogram<'outcome'>;
  breakerChanges: Counter<'change'>;
}

/** Room for resolution and recording around the HTTP exchange itself, within one claim. */
const LEASE_MARGIN_MS = 30_000;
/** Signing keys kept ready, one set per webhook, at most this many. */
const KEPT_KEYS = 10_000;

/**
 * Makes the attempts that are due. Deliveries live in PostgreSQL; each replica claims due ones for its free
 * slots (`claimDue`: FOR UPDATE SKIP LOCKED with a lease, so every attempt is made by one process, at most
 * WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT to one webhook across replicas, none to a webhook whose breaker is open),
 * POSTs them, and records each outcome (one transaction: the attempt, the next attempt's time, the webhook's
 * last outcome and breaker).
 *
 * It looks for due attempts when told (`kick`: new deliveries, a redelivery), when an attempt of its own ends
 * (a slot is free, and that webhook may have room again), and every WEBHOOK_POLL_INTERVAL_MS (retries come due,
 * other replicas' attempts end). A process killed mid-attempt leaves its claims to run out; they are attempted
 * again then.
 */
@Injectable()
export class Dispatcher {
  /** Attempts from their claim until their outcome is stored (or could not be). */
  private readonly inFlight = new Set<Promise<void>>();
  private claim?: Promise<void>;
  /** A kick came while a claim was running: it may have missed what the kick announced. */
  private kicked = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;
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
      perWebhook: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      breakerFailures: config.WEBHOOK_BREAKER_FAILURES,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      disableAfterDays: config.WEBHOOK_DISABLE_AFTER_DAYS,
    };
    this.metrics = webhooksMetrics(metrics);
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Claims and starts the due attempts its free slots allow (one claim at a time). */
  kick(): void {
    if (this.stopped) return;
    if (this.claim) {
      this.kicked = true;
      return;
    }
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return; // an attempt that ends looks again
    this.kicked = false;
    this.claim = this.claimAndStart(free).finally(() => {
      this.claim = undefined;
      if (this.kicked) this.kick();
    });
  }

  /** Stops claiming and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.claim;
    await Promise.allSettled([...this.inFlight]);
  }

  private async claimAndStart(free: number): Promise<void> {
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.repo.claimDue(
        free,
        this.options.timeoutMs + LEASE_MARGIN_MS,
        this.options.perWebhook,
      );
    } catch (err) {
      this.logger.warn({ err }, 'looking for due webhook deliveries failed'); // the next poll tries again
      return;
    }
    for (const delivery of claimed) this.launch(delivery);
  }

  private launch(delivery: ClaimedDelivery): void {
    const attempt = () => this.attempt(delivery);
    // The attempt's lines name the request that caused its event.
    const task = (delivery.request_id ? withRequestId(delivery.request_id, attempt) : attempt())
      .catch((err: unknown) =>
        // Nothing was recorded: the claim runs out and another attempt is made then.
        this.logger.error({ err, deliveryId: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        this.inFlight.delete(task);
        this.kick();
      });
    this.inFlight.add(task);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const at = new Date();
    const n = delivery.attempt_count;
    const result = await this.send(delivery);
    const { outcome, error } = judgeAttempt(
      result,
      { n, maxAttempts: delivery.max_attempts, isActive: delivery.is_active },
      this.options.schedule,
      Date.now(),
    );
    const { recorded, breaker } = await this.repo.recordAttempt(
      {
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
      },
      { disableAfterDays: this.options.disableAfterDays, breakerFailures: this.options.breakerFailures },
    );
    this.metrics.attempts.labels({ outcome: outcome.kind }).inc();
    this.metrics.attemptSeconds.labels({ outcome: outcome.kind }).observe(result.durationMs / 1000);
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
    if (breaker === 'none') return;
    this.metrics.breakerChanges.labels({ change: breaker }).inc();
    this.logger.warn(
      { webhookId: delivery.webhook_id, breaker },
      breaker === 'closed'
        ? 'webhook breaker closed: deliveries resume'
        : 'webhook breaker open: deliveries to this webhook wait for a probe',
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
