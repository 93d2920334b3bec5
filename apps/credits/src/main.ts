import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { creditsModule } from './app.module';
import { loadCreditsConfig } from './config';

runService('credits', loadCreditsConfig, creditsModule);
