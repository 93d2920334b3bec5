import { Inject, Injectable } from '@nestjs/common';
import { Consumers, MAX_WEBHOOKS_PER_ACCOUNT, Streams } from '@emailverify/contracts';
import { type ConsumerHandle, JetStreamKit } from '@emailverify/messaging';
import { Batches, LOGGER } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from '../config';
import { fileEventSchema } from '../webhooks.schemas';
import {
  type ClaimedDelivery,
  DeliveriesRepository,
  type EventDeliveries,
  type FirstAttempts,
  type NewEvent,
} from './deliveries.repository';
import { Dispatcher } from './dispatcher';

/** How fresh deliveries may be made claimed for the dispatcher: for how long, and at most how many. */
export type FreshClaim = NonNullable<FirstAttempts['claim']>;

/** Where fresh deliveries go: the dispatcher of this process. */
export interface FreshDeliveries {
  /** Whether, how long and how many fresh deliveries may be made claimed for this process now. */
  freshClaim(): FreshClaim | undefined;
  /**
   * Waits, until `deadline` at the latest, for room for `wanted` fresh deliveries made claimed, and answers as
   * `freshClaim` does then.
   */
  room(wanted: number, deadline: number): Promise<FreshClaim | undefined>;
  /** Deliveries made claimed for this process (`freshClaim`) at `claimedAt`: their first attempts. */
  adopt(claimed: ClaimedDelivery[], claimedAt: number): void;
  /** Deliveries were made unclaimed: look for due ones. */
  kick(): void;
}

/**
 * Events in hand at once: the events that arrive while one batch is being written make the next, so this
 * bounds a batch. The event stream's consumer allows at least 1,000 unacknowledged.
 */
const IN_HAND = 128;
/**
 * How long a batch of events may wait, in all, for the dispatcher's room to make its deliveries claimed (well
 * within the consumer's ack wait); what is left then is made unclaimed, to be claimed by a later look for due
 * deliveries, which costs PostgreSQL another rewrite of each of them.
 */
const ROOM_WAIT_MS = 2_000;
/** Deliveries per event assumed before any were made: the most webhooks an account may have. */
const FIRST_FAN_OUT = MAX_WEBHOOKS_PER_ACCOUNT;

/**
 * Turns each event on the EVENTS stream into one delivery per subscribed, active webhook of its account, then
 * acknowledges it. The body every attempt will send is fixed here. Events are taken in batches: those that
 * arrive while a batch is being written go in the next, whose deliveries are made in one statement and one
 * commit (or, when the dispatcher is busy, in a few), and each event is acknowledged once its commit is flushed.
 * An event redelivered by JetStream (a crash before the ack) makes no second delivery: deliveries are unique per
 * event and webhook. When the first attempts are due at once, deliveries are made claimed for the dispatcher as
 * far as it has room, and handed over directly.
 */
@Injectable()
export class EventIntake {
  private consumer?: ConsumerHandle;
  private readonly batches = new Batches<NewEvent, EventDeliveries>((events) => this.make(events), IN_HAND);
  /** Deliveries per event in the last statement that made any: how many events the dispatcher's room fits. */
  private fanOut = FIRST_FAN_OUT;
  private readonly options: { firstDelayMs: number };

  constructor(
    private readonly kit: JetStreamKit,
    private readonly repo: DeliveriesRepository,
    @Inject(Dispatcher) private readonly dispatcher: FreshDeliveries,
    @Inject(WEBHOOKS_CONFIG) config: Readonly<WebhooksConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    // The first attempt's delay: 0 (the default) makes each delivery claimed for its first attempt at once.
    this.options = { firstDelayMs: config.WEBHOOK_RETRY_SCHEDULE[0] ?? 0 };
  }

  async start(): Promise<void> {
    await this.kit.ensureStream(Streams.events);
    this.consumer = await this.kit.consume<unknown>(
      {
        stream: Streams.events.name,
        durable: Consumers.webhooksEvents,
        ackWaitMs: 30_000,
        concurrency: IN_HAND,
      },
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
    const { accountId, event, timestamp, sandbox, data } = parsed.data;
    const { ids } = await this.batches.add({
      accountId,
      eventId: `${data.job_id}:${event}`,
      event,
      jobId: data.job_id,
      // A sandbox job's body says so beside the event; a live one has no such field.
      body: JSON.stringify(sandbox ? { event, timestamp, sandbox, data } : { event, timestamp, data }),
      requestId,
    });
    if (ids.length > 0)
      this.logger.info({ event, jobId: data.job_id, deliveries: ids.length }, 'deliveries made');
    return 'ack';
  }

  /**
   * The deliveries of a batch of events. When first attempts are due at once, the events go in as many
   * statements as it takes to make their deliveries claimed for the dispatcher as its room allows (each waits
   * for room, the batch ROOM_WAIT_MS in all), so that a burst of events does not leave deliveries to be claimed
   * again afterwards; those made claimed go to the dispatcher.
   */
  private async make(events: NewEvent[]): Promise<EventDeliveries[]> {
    if (this.options.firstDelayMs !== 0) return this.insert(events, undefined);
    const deadline = Date.now() + ROOM_WAIT_MS;
    const made: EventDeliveries[] = [];
    while (made.length < events.length) {
      const left = events.length - made.length;
      const claim = await this.dispatcher.room(left * this.fanOut, deadline);
      const count = claim ? Math.min(left, Math.max(1, Math.floor(claim.max / this.fanOut))) : left;
      const part = events.slice(made.length, made.length + count);
      const deliveries = await this.insert(part, claim);
      const total = deliveries.reduce((sum, d) => sum + d.ids.length, 0);
      if (total > 0) this.fanOut = Math.max(1, total / part.length);
      made.push(...deliveries);
    }
    return made;
  }

  /** The deliveries of events in one statement, made claimed as far as `claim` allows. */
  private async insert(events: NewEvent[], claim: FreshClaim | undefined): Promise<EventDeliveries[]> {
    const claimedAt = Date.now();
    const made = await this.repo.createForEvents(events, {
      delayMs: this.options.firstDelayMs,
      ...(claim ? { claim } : {}),
    });
    const claimed = made.flatMap((m) => m.claimed);
    if (claimed.length > 0) this.dispatcher.adopt(claimed, claimedAt);
    if (made.some((m) => m.ids.length > m.claimed.length)) this.dispatcher.kick();
    return made;
  }
}
