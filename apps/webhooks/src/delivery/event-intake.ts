import { Consumers, Streams } from '@emailverify/contracts';
import type { ConsumerHandle, JetStreamKit } from '@emailverify/messaging';
import type { Logger } from 'pino';
import { fileEventSchema } from '../webhooks.schemas';
import type { DeliveriesRepository } from './deliveries.repository';

/**
 * Turns each event on the EVENTS stream into one delivery per subscribed, active webhook of its account, then
 * acknowledges it. The body every attempt will send is fixed here. An event redelivered by JetStream (a crash
 * before the ack) makes no second delivery: deliveries are unique per event and webhook.
 */
export class EventIntake {
  private consumer?: ConsumerHandle;

  constructor(
    private readonly kit: JetStreamKit,
    private readonly repo: DeliveriesRepository,
    private readonly options: { firstDelayMs: number; onDeliveries: () => void },
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.kit.ensureStream(Streams.events);
    this.consumer = await this.kit.consume<unknown>(
      { stream: Streams.events.name, durable: Consumers.webhooksEvents, ackWaitMs: 30_000, concurrency: 8 },
      async ({ payload }) => this.take(payload),
      (err) =>
        this.logger.error({ err }, 'event could not be turned into deliveries; it will be redelivered'),
    );
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }

  private async take(payload: unknown): Promise<'ack' | { terminate: string }> {
    const parsed = fileEventSchema.safeParse(payload);
    if (!parsed.success) {
      this.logger.error({ issues: parsed.error.issues.slice(0, 3) }, 'malformed event dropped');
      return { terminate: 'malformed event' };
    }
    const { accountId, event, timestamp, data } = parsed.data;
    const body = JSON.stringify({ event, timestamp, data });
    const ids = await this.repo.createForEvent({
      accountId,
      eventId: `${data.job_id}:${event}`,
      event,
      jobId: data.job_id,
      body,
      requestId: null,
      firstDelayMs: this.options.firstDelayMs,
    });
    if (ids.length > 0) {
      this.logger.info({ event, jobId: data.job_id, deliveries: ids.length }, 'deliveries made');
      this.options.onDeliveries();
    }
    return 'ack';
  }
}
