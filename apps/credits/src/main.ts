import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { CreditsAppModule } from './app.module';
import { loadCreditsConfig } from './config';

runService('credits', loadCreditsConfig, (config) => CreditsAppModule.forRoot(config));
