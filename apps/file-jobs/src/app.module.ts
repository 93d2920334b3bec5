import { type DynamicModule, Module } from '@nestjs/common';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import type { DataSource } from '@emailverify/persistence';
import { LOGGER, ObservabilityModule, SERVICE_DATA_SOURCE, serviceProviders } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import type { FileJobsConfig } from './config';
import { FileJobsHandler } from './file-jobs.handler';
import { JobCreator } from './jobs/job-creator';
import { JobMerger } from './jobs/job-merger';
import { JobRunner } from './jobs/job-runner';
import { JobsRepository } from './jobs/jobs.repository';
import { JobsService } from './jobs/jobs.service';
import { ResultWriter } from './jobs/result-writer';
import { filesMigrations } from './migrations';

@Module({})
export class FileJobsAppModule {
  static forRoot(config: Readonly<FileJobsConfig>): DynamicModule {
    return {
      module: FileJobsAppModule,
      imports: [
        ObservabilityModule.forRoot({
          providers: serviceProviders({
            service: 'file-jobs',
            config,
            database: { schema: 'files', migrations: filesMigrations },
          }),
        }),
      ],
      providers: [
        {
          provide: JetStreamKit,
          inject: [MessageBus],
          useFactory: (bus: MessageBus) => new JetStreamKit(bus),
        },
        {
          provide: JobsRepository,
          inject: [SERVICE_DATA_SOURCE],
          useFactory: (db: DataSource) => new JobsRepository(db),
        },
        {
          provide: ResultWriter,
          inject: [JobsRepository, JetStreamKit],
          useFactory: (repo: JobsRepository, kit: JetStreamKit) => new ResultWriter(repo, kit, config),
        },
        {
          provide: JobMerger,
          inject: [JobsRepository, MessageBus, JetStreamKit, ResultWriter, LOGGER],
          useFactory: (
            repo: JobsRepository,
            bus: MessageBus,
            kit: JetStreamKit,
            writer: ResultWriter,
            logger: Logger,
          ) => new JobMerger(repo, bus, kit, writer, config, logger),
        },
        {
          provide: JobRunner,
          inject: [JobsRepository, MessageBus, JetStreamKit, JobMerger, LOGGER],
          useFactory: (
            repo: JobsRepository,
            bus: MessageBus,
            kit: JetStreamKit,
            merger: JobMerger,
            logger: Logger,
          ) => new JobRunner(repo, bus, kit, merger, config, logger),
        },
        {
          provide: JobCreator,
          inject: [JobsRepository, JetStreamKit, MessageBus],
          useFactory: (repo: JobsRepository, kit: JetStreamKit, bus: MessageBus) =>
            new JobCreator(repo, kit, bus, config),
        },
        {
          provide: JobsService,
          inject: [JobsRepository, JobRunner, JobMerger, MessageBus],
          useFactory: (repo: JobsRepository, runner: JobRunner, merger: JobMerger, bus: MessageBus) =>
            new JobsService(repo, runner, merger, bus),
        },
        FileJobsHandler,
      ],
    };
  }
}
