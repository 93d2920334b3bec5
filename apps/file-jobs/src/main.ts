import 'reflect-metadata';
import { runService, STREAMING_HEAP_GROWING_PERCENT } from '@emailverify/service-kit';
import { fileJobsModule } from './app.module';
import { fileJobsConfig } from './config';

runService(fileJobsConfig, fileJobsModule, {
  heapGrowingPercent: STREAMING_HEAP_GROWING_PERCENT,
});
