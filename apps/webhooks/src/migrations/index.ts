import { WebhooksInit1764100000000 } from './1764100000000-webhooks-init';

export const webhooksMigrations = [WebhooksInit1764100000000];
