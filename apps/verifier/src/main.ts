import 'reflect-metadata';
import { runService } from '@emailverify/service-kit';
import { verifierModule } from './app.module';
import { loadVerifierConfig } from './config';

runService('verifier', loadVerifierConfig, verifierModule);
