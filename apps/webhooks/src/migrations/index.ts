import { WebhooksInit1764100000000 } from './1764100000000-webhooks-init';
import { WebhookSecretRotation1764900000000 } from './1764900000000-webhook-secret-rotation';

export const webhooksMigrations = [WebhooksInit1764100000000, WebhookSecretRotation1764900000000];
