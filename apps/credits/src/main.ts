import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { creditsModule } from './app.module';
import { creditsConfig } from './config';

runService(creditsConfig, creditsModule);
