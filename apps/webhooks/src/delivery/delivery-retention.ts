import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, PeriodicTask } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from '../config';
import { DeliveriesRepository } from './deliveries.repository';

/** How often the delivery log is trimmed to WEBHOOK_DELIVERY_RETENTION_DAYS. */
const SWEEP_INTERVAL_MS = 3_600_000;

/** Removes the deliveries (and their attempts) that ended more than WEBHOOK_DELIVERY_RETENTION_DAYS ago. */
@Injectable()
export class DeliveryRetention extends PeriodicTask {
  constructor(
    deliveries: DeliveriesRepository,
    @Inject(WEBHOOKS_CONFIG) config: Readonly<WebhooksConfig>,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(
      'delivery retention sweep',
      SWEEP_INTERVAL_MS,
      async () => {
        const removed = await deliveries.deleteEndedBefore(config.WEBHOOK_DELIVERY_RETENTION_DAYS);
        if (removed > 0) logger.info({ removed }, 'old deliveries removed');
      },
      logger,
    );
  }
}
