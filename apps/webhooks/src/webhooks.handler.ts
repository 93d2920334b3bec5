import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { RouteServer } from '@emailverify/service-kit';
import { Dispatcher } from './delivery/dispatcher';
import { EventIntake } from './delivery/event-intake';
import { WebhooksPayloads as P } from './webhooks.schemas';
import { WebhooksService } from './webhooks/webhooks.service';

/** NATS entry points of the webhooks service (each one line into the service), and delivery's lifecycle. */
@Injectable()
export class WebhooksHandler implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly server: RouteServer,
    private readonly webhooks: WebhooksService,
    private readonly intake: EventIntake,
    private readonly dispatcher: Dispatcher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const w = this.webhooks;
    this.server.serveRoutes(QueueGroups.webhooks, Subjects.webhooksPing, {
      [Subjects.webhooksCreate]: { parse: P.create, handle: (r) => w.create(r) },
      [Subjects.webhooksList]: { parse: P.list, handle: (r) => w.list(r.accountId) },
      [Subjects.webhooksUpdate]: { parse: P.update, handle: (r) => w.update(r) },
      [Subjects.webhooksDelete]: { parse: P.ref, handle: (r) => w.delete(r) },
      [Subjects.webhooksRotateSecret]: { parse: P.ref, handle: (r) => w.rotateSecret(r) },
      [Subjects.webhooksDeliveryList]: { parse: P.deliveries, handle: (r) => w.listDeliveries(r) },
      [Subjects.webhooksRedeliver]: { parse: P.redeliver, handle: (r) => w.redeliver(r) },
    });
    this.dispatcher.start();
    await this.intake.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.intake.stop();
    await this.dispatcher.stop();
  }
}
