import 'reflect-metadata';
import { runService, STREAMING_HEAP_GROWING_PERCENT } from '@emailverify/service-kit';
import { verifierModule } from './app.module';
import { verifierConfig } from './config';

runService(verifierConfig, verifierModule, {
  heapGrowingPercent: STREAMING_HEAP_GROWING_PERCENT,
});
