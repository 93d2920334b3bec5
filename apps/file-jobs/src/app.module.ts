import type { DynamicModule } from '@nestjs/common';
import { serviceModule } from '@emailverify/service-kit';
import { fileJobsConfig, type FileJobsConfig } from './config';
import { FileJobsHandler } from './file-jobs.handler';
import { FileJobsMetrics } from './file-jobs.metrics';
import { GreylistDispatch } from './greylist/greylist-dispatch';
import { GreylistRepository } from './greylist/greylist.repository';
import { GreylistRetries } from './greylist/greylist-retries';
import { JobCreator } from './jobs/job-creator';
import { JobFiles } from './jobs/job-files';
import { JobMerger } from './jobs/job-merger';
import { JobRunner } from './jobs/job-runner';
import { ChunksRepository } from './jobs/chunks.repository';
import { JobsRepository } from './jobs/jobs.repository';
import { JobsService } from './jobs/jobs.service';
import { ResultWriter } from './jobs/result-writer';
import { PartialCopiesSweep, RetentionSweep } from './jobs/retention-sweep';
import { filesDatabase } from './migrations';

/** file-jobs: file jobs from upload to result file, over NATS and JetStream. */
export function fileJobsModule(config: Readonly<FileJobsConfig>): DynamicModule {
  return serviceModule(fileJobsConfig, config, {
    database: filesDatabase,
    providers: [
      FileJobsMetrics,
      JobsRepository,
      ChunksRepository,
      GreylistRepository,
      ResultWriter,
      JobMerger,
      GreylistRetries,
      JobRunner,
      JobCreator,
      JobFiles,
      JobsService,
      FileJobsHandler,
      GreylistDispatch,
      RetentionSweep,
      PartialCopiesSweep,
    ],
  });
}
