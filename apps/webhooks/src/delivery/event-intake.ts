import { Consumers, Streams } from '@emailverify/contracts';
import type { ConsumerHandle, JetStreamKit } from '@emailverify/messaging';
import type { Logger } from 'pino';
import { fileEventSchema } from '../webhooks.schemas';
import type { ClaimedDelivery, DeliveriesRepository } from './deliveries.repository';

/** Where fresh deliveries go: the dispatcher of this process. */
export interface FreshDeliveries {
  /** How long fresh deliveries may be made claimed for this process, or undefined when it has no room now. */
  freshClaimMs(): number | undefined;
  /** Deliveries made claimed for this process (`freshClaimMs`) at `claimedAt`: their first attempts. */
  adopt(claimed: ClaimedDelivery[], claimedAt: number): void;
  /** Deliveries were made unclaimed: look for due ones. */
  kick(): void;
}

/**
 * Turns each event on the EVENTS stream into one delivery per subscribed, active webhook of its account, then
 * acknowledges it. The body every attempt will send is fixed here. An event redelivered by JetStream (a crash
 * before the ack) makes no second delivery: deliveries are unique per event and webhook. When the first attempt
 * is due at once and the dispatcher has room, the deliveries are made claimed for it and handed over directly.
 */
export class EventIntake {
  private consumer?: ConsumerHandle;

  constructor(
    private readonly kit: JetStreamKit,
    private readonly repo: DeliveriesRepository,
    private readonly dispatcher: FreshDeliveries,
    private readonly options: { firstDelayMs: number },
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.kit.ensureStream(Streams.events);
    this.consumer = await this.kit.consume<unknown>(
      { stream: Streams.events.name, durable: Consumers.webhooksEvents, ackWaitMs: 30_000, concurrency: 8 },
      async ({ payload, requestId }) => this.take(payload, requestId),
      (err) =>
        this.logger.error({ err }, 'event could not be turned into deliveries; it will be redelivered'),
    );
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }

  /** `requestId`: the request that caused the event (the job's upload); its deliveries keep it. */
  private async take(payload: unknown, requestId: string): Promise<'ack' | { terminate: string }> {
    const parsed = fileEventSchema.safeParse(payload);
    if (!parsed.success) {
      this.logger.error({ issues: parsed.error.issues.slice(0, 3) }, 'malformed event dropped');
      return { terminate: 'malformed event' };
    }
    const { accountId, event, timestamp, data } = parsed.data;
    const body = JSON.stringify({ event, timestamp, data });
    const claimForMs = this.options.firstDelayMs === 0 ? this.dispatcher.freshClaimMs() : undefined;
    const claimedAt = Date.now();
    const { ids, claimed } = await this.repo.createForEvent(
      {
        accountId,
        eventId: `${data.job_id}:${event}`,
        event,
        jobId: data.job_id,
        body,
        requestId,
        firstDelayMs: this.options.firstDelayMs,
      },
      claimForMs,
    );
    if (ids.length > 0) {
      this.logger.info({ event, jobId: data.job_id, deliveries: ids.length }, 'deliveries made');
      if (claimed.length > 0) this.dispatcher.adopt(claimed, claimedAt);
      else this.dispatcher.kick();
    }
    return 'ack';
  }
}
