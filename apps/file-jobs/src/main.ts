import 'reflect-metadata';
import { runService, STREAMING_HEAP_GROWING_PERCENT } from '@emailverify/service-kit';
import { fileJobsModule } from './app.module';
import { loadFileJobsConfig } from './config';

runService('file-jobs', loadFileJobsConfig, fileJobsModule, {
  heapGrowingPercent: STREAMING_HEAP_GROWING_PERCENT,
});
