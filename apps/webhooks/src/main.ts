import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { webhooksModule } from './app.module';
import { loadWebhooksConfig } from './config';

runService('webhooks', loadWebhooksConfig, webhooksModule);
