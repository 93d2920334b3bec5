import { Inject, Injectable } from '@nestjs/common';
import { Consumers, Streams } from '@emailverify/contracts';
import { type ConsumerHandle, JetStreamKit } from '@emailverify/messaging';
import { Batches, LOGGER } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from '../config';
import { fileEventSchema } from '../webhooks.schemas';
import { DeliveriesRepository, type EventDeliveries, type NewEvent } from './deliveries.repository';
import { Dispatcher } from './dispatcher';

/**
 * Events in hand at once: the events that arrive while one batch is being written make the next, so this
 * bounds a batch. The event stream's consumer allows at least 1,000 unacknowledged.
 */
const IN_HAND = 128;

/**
 * Turns each event on the EVENTS stream into one delivery per subscribed, active webhook of its account, then
 * acknowledges it. The body every attempt will send is fixed here. Events are taken in batches: those that
 * arrive while a batch is being written go in the next, whose deliveries are made in one statement and one
 * commit, and each event is acknowledged once its commit is flushed. An event redelivered by JetStream (a crash
 * before the ack) makes no second delivery: deliveries are unique per event and webhook. The dispatcher is told
 * of new deliveries, so that a first attempt due at once goes without waiting for its next poll.
 */
@Injectable()
export class EventIntake {
  private consumer?: ConsumerHandle;
  private readonly batches = new Batches<NewEvent, EventDeliveries>((events) => this.make(events), IN_HAND);
  private readonly firstDelayMs: number;

  constructor(
    private readonly kit: JetStreamKit,
    private readonly repo: DeliveriesRepository,
    @Inject(Dispatcher) private readonly dispatcher: Pick<Dispatcher, 'kick'>,
    @Inject(WEBHOOKS_CONFIG) config: Readonly<WebhooksConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.firstDelayMs = config.WEBHOOK_RETRY_SCHEDULE[0] ?? 0;
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

  /** The deliveries of a batch of events, in one statement; the dispatcher looks for due ones at once. */
  private async make(events: NewEvent[]): Promise<EventDeliveries[]> {
    const made = await this.repo.createForEvents(events, this.firstDelayMs);
    if (this.firstDelayMs === 0 && made.some((m) => m.ids.length > 0)) this.dispatcher.kick();
    return made;
  }
}
