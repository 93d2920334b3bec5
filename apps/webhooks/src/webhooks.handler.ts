import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { LOGGER, RouteServer } from '@emailverify/service-kit';
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
    private readonly server: RouteServer,
    private readonly webhooks: WebhooksService,
    private readonly intake: EventIntake,
    private readonly dispatcher: Dispatcher,
    private readonly deliveries: DeliveriesRepository,
    @Inject(WEBHOOKS_CONFIG) private readonly config: Readonly<WebhooksConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const w = this.webhooks;
    this.server.serveRoutes(QueueGroups.webhooks, Subjects.webhooksPing, {
      [Subjects.webhooksCreate]: { parse: P.create, handle: (r) => w.create(r) },
      [Subjects.webhooksList]: { parse: P.list, handle: (r) => w.list(r.accountId) },
      [Subjects.webhooksUpdate]: { parse: P.update, handle: (r) => w.update(r) },
      [Subjects.webhooksDelete]: { parse: P.ref, handle: (r) => w.delete(r) },
      [Subjects.webhooksDeliveryList]: { parse: P.deliveries, handle: (r) => w.listDeliveries(r) },
      [Subjects.webhooksRedeliver]: { parse: P.redeliver, handle: (r) => w.redeliver(r) },
    });
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
}
