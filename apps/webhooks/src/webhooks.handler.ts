import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import type { DataSource } from '@emailverify/persistence';
import { LOGGER, Metrics, SERVICE_DATA_SOURCE, serveRoutes } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from './config';
import { DeliveriesRepository } from './delivery/deliveries.repository';
import { Dispatcher } from './delivery/dispatcher';
import { EventIntake } from './delivery/event-intake';
import { WebhooksPayloads as P } from './webhooks.schemas';
import { WebhooksService } from './webhooks/webhooks.service';

/** NATS entry points of the webhooks service (each one line into the service), and delivery's lifecycle. */
@Injectable()
export class WebhooksHandler implements OnApplicationBootstrap, OnApplicationShutdown {
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly bus: MessageBus,
    private readonly webhooks: WebhooksService,
    private readonly intake: EventIntake,
    private readonly dispatcher: Dispatcher,
    private readonly deliveries: DeliveriesRepository,
    @Inject(WEBHOOKS_CONFIG) private readonly config: Readonly<WebhooksConfig>,
    @Inject(SERVICE_DATA_SOURCE) private readonly db: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const w = this.webhooks;
    serveRoutes(
      this.bus,
      QueueGroups.webhooks,
      {
        [Subjects.webhooksCreate]: { parse: P.create, handle: (r) => w.create(r) },
        [Subjects.webhooksList]: { parse: P.list, handle: (r) => w.list(r.accountId) },
        [Subjects.webhooksUpdate]: { parse: P.update, handle: (r) => w.update(r) },
        [Subjects.webhooksDelete]: { parse: P.ref, handle: (r) => w.delete(r) },
        [Subjects.webhooksDeliveryList]: { parse: P.deliveries, handle: (r) => w.listDeliveries(r) },
        [Subjects.webhooksRedeliver]: { parse: P.redeliver, handle: (r) => w.redeliver(r) },
        [Subjects.webhooksPing]: { parse: P.ping, handle: () => this.ping() },
      },
      this.logger,
      this.metrics,
    );
    this.dispatcher.start();
    await this.intake.start();
    this.sweeper = setInterval(() => void this.sweep(), 3_600_000);
    this.sweeper.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await this.intake.stop();
    await this.dispatcher.stop();
  }

  /** The delivery log keeps WEBHOOK_DELIVERY_RETENTION_DAYS. */
  private async sweep(): Promise<void> {
    try {
      const removed = await this.deliveries.deleteEndedBefore(this.config.WEBHOOK_DELIVERY_RETENTION_DAYS);
      if (removed > 0) this.logger.info({ removed }, 'old deliveries removed');
    } catch (err) {
      this.logger.warn({ err }, 'removing old deliveries failed');
    }
  }

  private async ping(): Promise<{ service: string; ok: boolean }> {
    await this.db.query('SELECT 1');
    return { service: 'webhooks', ok: true };
  }
}
