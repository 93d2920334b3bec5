import type { ServiceDatabase } from '@emailverify/service-kit';
import { WebhooksInit1764100000000 } from './1764100000000-webhooks-init';
import { WebhookSecretRotation1764900000000 } from './1764900000000-webhook-secret-rotation';
import { WebhookBreaker1765000000000 } from './1765000000000-webhook-breaker';

export const webhooksMigrations = [
  WebhooksInit1764100000000,
  WebhookSecretRotation1764900000000,
  WebhookBreaker1765000000000,
];

/** The schema The webhooks service owns, which its migrations write into. */
export const webhooksDatabase: ServiceDatabase = { schema: 'webhooks', migrations: webhooksMigrations };
