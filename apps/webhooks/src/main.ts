import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { webhooksModule } from './app.module';
import { webhooksConfig } from './config';

runService(webhooksConfig, webhooksModule);
