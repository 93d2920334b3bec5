import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { VerifierAppModule } from './app.module';
import { loadVerifierConfig } from './config';

runService('verifier', loadVerifierConfig, (config) => VerifierAppModule.forRoot(config));
