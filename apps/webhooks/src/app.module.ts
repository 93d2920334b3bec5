import type { DynamicModule } from '@nestjs/common';
import { serviceModule } from '@emailverify/service-kit';
import { webhooksConfig, type WebhooksConfig } from './config';
import { DeliveriesRepository } from './delivery/deliveries.repository';
import { DeliveryRetention } from './delivery/delivery-retention';
import { Dispatcher } from './delivery/dispatcher';
import { EventIntake } from './delivery/event-intake';
import { HttpSender } from './delivery/http-sender';
import { webhooksDatabase } from './migrations';
import { WebhooksHandler } from './webhooks.handler';
import { SecretBox } from './webhooks/secret-box';
import { SecretRekey } from './webhooks/secret-rekey';
import { WebhooksRepository } from './webhooks/webhooks.repository';
import { WebhooksService } from './webhooks/webhooks.service';

/** The webhooks service: webhook CRUD over NATS, deliveries of the EVENTS stream. */
export function webhooksModule(config: Readonly<WebhooksConfig>): DynamicModule {
  return serviceModule(webhooksConfig, config, {
    database: webhooksDatabase,
    providers: [
      // The key is parsed with the config (config.ts uses secret-box's parser), so the box is made from it here.
      { provide: SecretBox, useValue: new SecretBox(config.secretKeys) },
      WebhooksRepository,
      DeliveriesRepository,
      HttpSender,
      Dispatcher,
      EventIntake,
      WebhooksService,
      WebhooksHandler,
      DeliveryRetention,
      SecretRekey,
    ],
  });
}
