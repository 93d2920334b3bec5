import type { DynamicModule } from '@nestjs/common';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { LOGGER, periodicTask, serviceModule, withDataSource, withMetrics } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import type { FileJobsConfig } from './config';
import { FileJobsHandler } from './file-jobs.handler';
import { FileJobsMetrics } from './file-jobs.metrics';
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
import { filesMigrations } from './migrations';

/** file-jobs: file jobs from upload to result file, over NATS and JetStream. */
export function fileJobsModule(config: Readonly<FileJobsConfig>): DynamicModule {
  return serviceModule('file-jobs', config, {
    database: { schema: 'files', migrations: filesMigrations },
    providers: [
      withMetrics(FileJobsMetrics),
      withDataSource(JobsRepository),
      withDataSource(ChunksRepository),
      {
        provide: ResultWriter,
        inject: [ChunksRepository, JetStreamKit],
        useFactory: (chunks: ChunksRepository, kit: JetStreamKit) => new ResultWriter(chunks, kit, config),
      },
      {
        provide: JobMerger,
        inject: [JobsRepository, MessageBus, JetStreamKit, ResultWriter, LOGGER, FileJobsMetrics],
        useFactory: (
          repo: JobsRepository,
          bus: MessageBus,
          kit: JetStreamKit,
          writer: ResultWriter,
          logger: Logger,
          metrics: FileJobsMetrics,
        ) => new JobMerger(repo, bus, kit, writer, config, logger, metrics),
      },
      withDataSource(GreylistRepository),
      {
        provide: GreylistRetries,
        inject: [GreylistRepository, JetStreamKit, LOGGER],
        useFactory: (repo: GreylistRepository, kit: JetStreamKit, logger: Logger) =>
          new GreylistRetries(
            repo,
            kit,
            { delays: config.GREYLIST_RETRY_DELAYS, staleSeconds: config.FILE_CHUNK_STALE_SECONDS },
            logger,
          ),
      },
      periodicTask({
        provide: 'GreylistDispatch',
        name: 'greylisting retries',
        intervalMs: config.FILE_RECOVERY_INTERVAL_MS,
        inject: [GreylistRetries],
        run: (retries: GreylistRetries) => retries.dispatchDue(),
      }),
      {
        provide: JobRunner,
        inject: [
          JobsRepository,
          ChunksRepository,
          MessageBus,
          JetStreamKit,
          JobMerger,
          LOGGER,
          FileJobsMetrics,
          GreylistRetries,
        ],
        useFactory: (
          repo: JobsRepository,
          chunks: ChunksRepository,
          bus: MessageBus,
          kit: JetStreamKit,
          merger: JobMerger,
          logger: Logger,
          metrics: FileJobsMetrics,
          greylist: GreylistRetries,
        ) => new JobRunner(repo, chunks, bus, kit, merger, config, logger, metrics, greylist),
      },
      {
        provide: JobCreator,
        inject: [JobsRepository, JetStreamKit, MessageBus],
        useFactory: (repo: JobsRepository, kit: JetStreamKit, bus: MessageBus) =>
          new JobCreator(repo, kit, bus, config),
      },
      {
        provide: JobFiles,
        inject: [JobsRepository, JetStreamKit],
        useFactory: (repo: JobsRepository, kit: JetStreamKit) =>
          new JobFiles(repo, kit, config.FILE_RETENTION_DAYS),
      },
      {
        provide: JobsService,
        inject: [JobsRepository, JobRunner, JobMerger, MessageBus, JobFiles],
        useFactory: (
          repo: JobsRepository,
          runner: JobRunner,
          merger: JobMerger,
          bus: MessageBus,
          files: JobFiles,
        ) => new JobsService(repo, runner, merger, bus, files),
      },
      FileJobsHandler,
      periodicTask({
        provide: 'RetentionSweep',
        name: 'retention sweep',
        intervalMs: config.FILE_RETENTION_SWEEP_INTERVAL_MS,
        inject: [JobFiles, LOGGER],
        run: async (files: JobFiles, logger: Logger) => {
          const swept = await files.sweepExpired();
          if (swept > 0) logger.info({ jobs: swept }, 'deleted the files of jobs past their retention');
        },
      }),
    ],
  });
}
