import type { DynamicModule } from '@nestjs/common';
import { JetStreamKit } from '@emailverify/messaging';
import {
  LOGGER,
  Metrics,
  PER_REQUEST_LOG_HOLD_MS,
  periodicTask,
  serviceModule,
  withDataSource,
} from '@emailverify/service-kit';
import type { Logger } from 'pino';
import type { WebhooksConfig } from './config';
import { DeliveriesRepository } from './delivery/deliveries.repository';
import { Dispatcher } from './delivery/dispatcher';
import { EventIntake } from './delivery/event-intake';
import { HttpSender } from './delivery/http-sender';
import { webhooksMigrations } from './migrations';
import { WebhooksHandler } from './webhooks.handler';
import { webhooksMetrics } from './webhooks.metrics';
import { SecretBox } from './webhooks/secret-box';
import { WebhooksRepository } from './webhooks/webhooks.repository';
import { WebhooksService } from './webhooks/webhooks.service';

/** The webhooks service: webhook CRUD over NATS, deliveries of the EVENTS stream. */
export function webhooksModule(config: Readonly<WebhooksConfig>): DynamicModule {
  return serviceModule('webhooks', config, {
    database: { schema: 'webhooks', migrations: webhooksMigrations },
    logHoldMs: PER_REQUEST_LOG_HOLD_MS,
    providers: [
      { provide: SecretBox, useValue: new SecretBox(config.WEBHOOK_SECRET_KEY) },
      withDataSource(WebhooksRepository),
      withDataSource(DeliveriesRepository),
      {
        provide: HttpSender,
        useFactory: () =>
          new HttpSender({
            timeoutMs: config.WEBHOOK_TIMEOUT_MS,
            allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
            maxSocketsPerTarget: config.WEBHOOK_DELIVERY_CONCURRENCY,
          }),
      },
      {
        provide: Dispatcher,
        inject: [DeliveriesRepository, HttpSender, SecretBox, LOGGER, Metrics],
        useFactory: (
          repo: DeliveriesRepository,
          sender: HttpSender,
          box: SecretBox,
          logger: Logger,
          metrics: Metrics,
        ) =>
          new Dispatcher(
            repo,
            sender,
            box,
            {
              schedule: config.WEBHOOK_RETRY_SCHEDULE,
              concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
              pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
              timeoutMs: config.WEBHOOK_TIMEOUT_MS,
              disableAfterDays: config.WEBHOOK_DISABLE_AFTER_DAYS,
            },
            logger,
            webhooksMetrics(metrics),
          ),
      },
      {
        provide: EventIntake,
        inject: [JetStreamKit, DeliveriesRepository, Dispatcher, LOGGER],
        useFactory: (kit: JetStreamKit, repo: DeliveriesRepository, dispatcher: Dispatcher, logger: Logger) =>
          new EventIntake(
            kit,
            repo,
            dispatcher,
            { firstDelayMs: config.WEBHOOK_RETRY_SCHEDULE[0] ?? 0 },
            logger,
          ),
      },
      {
        provide: WebhooksService,
        inject: [WebhooksRepository, DeliveriesRepository, SecretBox, Dispatcher],
        useFactory: (
          webhooks: WebhooksRepository,
          deliveries: DeliveriesRepository,
          box: SecretBox,
          dispatcher: Dispatcher,
        ) =>
          new WebhooksService(webhooks, deliveries, box, {
            allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
            onRedeliver: () => dispatcher.kick(),
          }),
      },
      WebhooksHandler,
      // The delivery log keeps WEBHOOK_DELIVERY_RETENTION_DAYS.
      periodicTask({
        provide: 'DeliveryRetention',
        name: 'delivery retention sweep',
        intervalMs: 3_600_000,
        inject: [DeliveriesRepository, LOGGER],
        run: async (deliveries: DeliveriesRepository, logger: Logger) => {
          const removed = await deliveries.deleteEndedBefore(config.WEBHOOK_DELIVERY_RETENTION_DAYS);
          if (removed > 0) logger.info({ removed }, 'old deliveries removed');
        },
      }),
    ],
  });
}
