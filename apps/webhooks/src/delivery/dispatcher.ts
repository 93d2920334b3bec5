import type { Counter, Histogram } from 'prom-client';
import type { Logger } from 'pino';
import type { SecretBox } from '../webhooks/secret-box';
import type { AttemptOutcome, ClaimedDelivery, DeliveriesRepository } from './deliveries.repository';
import type { HttpSender, SendResult } from './http-sender';
import { parseRetryAfter, withJitter } from './retry-schedule';
import { deliveryHeaders } from './signing';

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

/**
 * Makes the attempts that are due. Deliveries live in PostgreSQL; each replica claims due ones (FOR UPDATE SKIP
 * LOCKED, so every attempt is made by one process), POSTs them, and records the outcome with the next attempt's
 * time. A fresh delivery is attempted at once (`kick`); retries are found by polling.
 */
export class Dispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private pumping = false;
  private again = false;

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly sender: HttpSender,
    private readonly box: SecretBox,
    private readonly options: DispatcherOptions,
    private readonly logger: Logger,
    private readonly metrics: DispatcherMetrics,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.options.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for due attempts now (after new deliveries, a redelivery, or a finished attempt). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .catch((err: unknown) => this.logger.warn({ err }, 'looking for due webhook deliveries failed'))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Stops claiming, and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  private async pump(): Promise<void> {
    while (!this.stopped) {
      const room = this.options.concurrency - this.inFlight.size;
      if (room <= 0) return; // a finished attempt kicks again
      const claimed = await this.repo.claimDue(room, this.options.timeoutMs + LEASE_MARGIN_MS);
      for (const delivery of claimed) {
        const task = this.attempt(delivery)
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
      if (claimed.length < room) return;
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const at = new Date();
    const n = delivery.attempt_count;
    let result: SendResult;
    if (!delivery.is_active) {
      result = {
        status: null,
        headers: {},
        body: null,
        error: 'not sent: the webhook is inactive',
        durationMs: 0,
      };
    } else {
      const secret = this.box.open(delivery.secret_sealed, delivery.webhook_id);
      const headers = deliveryHeaders({
        deliveryId: delivery.id,
        event: delivery.event,
        body: delivery.body,
        secret,
        timestamp: Math.floor(Date.now() / 1000),
      });
      result = await this.sender.post(delivery.url, headers, delivery.body);
    }
    const { outcome, error } = this.judge(delivery, result);
    const recorded = await this.repo.recordAttempt(
      {
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
      { disableAfterDays: this.options.disableAfterDays },
    );
    this.metrics.attempts.inc({ outcome: outcome.kind });
    this.metrics.attemptSeconds.observe({ outcome: outcome.kind }, result.durationMs / 1000);
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

  /** The outcome rules: 2xx delivers, 410 deactivates, anything else is retried until the schedule ends. */
  private judge(
    delivery: ClaimedDelivery,
    result: SendResult,
  ): { outcome: AttemptOutcome; error: string | null } {
    if (!delivery.is_active) return { outcome: { kind: 'inactive' }, error: result.error };
    const status = result.status;
    if (status !== null && status >= 200 && status < 300)
      return { outcome: { kind: 'success' }, error: null };
    if (status === 410)
      return {
        outcome: { kind: 'gone' },
        error: 'The receiver answered 410 Gone: the webhook was deactivated',
      };
    const error =
      status === null
        ? (result.error ?? 'no reply')
        : status >= 300 && status < 400
          ? `HTTP ${status}: redirects are not followed`
          : `HTTP ${status}`;
    const n = delivery.attempt_count;
    const schedule = this.options.schedule;
    const maxAttempts = delivery.max_attempts ?? schedule.length;
    if (n >= maxAttempts) return { outcome: { kind: 'failed' }, error };
    let delayMs = withJitter(schedule[Math.min(n, schedule.length - 1)]!);
    if (status === 429 || status === 503) {
      const header = result.headers['retry-after'];
      const retryAfter = parseRetryAfter(Array.isArray(header) ? header[0] : header);
      if (retryAfter !== undefined) delayMs = Math.max(delayMs, retryAfter);
    }
    return { outcome: { kind: 'retry', nextAttemptAt: new Date(Date.now() + delayMs) }, error };
  }
}
