import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { WebhooksAppModule } from './app.module';
import { loadWebhooksConfig } from './config';

runService('webhooks', loadWebhooksConfig, (config) => WebhooksAppModule.forRoot(config));
