import { periodicTask } from '@emailverify/service-kit';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from '../config';
import { DeliveriesRepository } from './deliveries.repository';

/** How often the delivery log is trimmed to WEBHOOK_DELIVERY_RETENTION_DAYS. */
const SWEEP_INTERVAL_MS = 3_600_000;

/** Removes the deliveries (and their attempts) that ended more than WEBHOOK_DELIVERY_RETENTION_DAYS ago. */
export const DeliveryRetention = periodicTask(
  'delivery retention sweep',
  [DeliveriesRepository, WEBHOOKS_CONFIG],
  (deliveries: DeliveriesRepository, config: Readonly<WebhooksConfig>) => ({
    intervalMs: SWEEP_INTERVAL_MS,
    run: () => deliveries.deleteEndedBefore(config.WEBHOOK_DELIVERY_RETENTION_DAYS),
    done: { message: 'old deliveries removed', count: 'removed' },
  }),
);
