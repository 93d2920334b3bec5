import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import type { DataSource } from '@emailverify/persistence';
import { LOGGER, Metrics, SERVICE_DATA_SOURCE, serveRoutes } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { FileJobsPayloads as P } from './file-jobs.schemas';
import { JobCreator } from './jobs/job-creator';
import { JobRunner } from './jobs/job-runner';
import { JobsService } from './jobs/jobs.service';

/** NATS entry points of file-jobs (each one line into a service), and the runner's lifecycle. */
@Injectable()
export class FileJobsHandler implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly bus: MessageBus,
    private readonly creator: JobCreator,
    private readonly jobs: JobsService,
    private readonly runner: JobRunner,
    @Inject(SERVICE_DATA_SOURCE) private readonly db: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.start();
    const j = this.jobs;
    serveRoutes(
      this.bus,
      QueueGroups.fileJobs,
      {
        [Subjects.filesJobCreate]: { parse: P.create, handle: (r) => this.create(r) },
        [Subjects.filesJobGet]: { parse: P.ref, handle: (r) => j.get(r) },
        [Subjects.filesJobPause]: { parse: P.ref, handle: (r) => j.pause(r) },
        [Subjects.filesJobResume]: { parse: P.ref, handle: (r) => j.resume(r) },
        [Subjects.filesJobCancel]: { parse: P.ref, handle: (r) => j.cancel(r) },
        [Subjects.filesJobResults]: { parse: P.ref, handle: (r) => j.results(r) },
        [Subjects.filesJobLocate]: { parse: P.locate, handle: (r) => j.locate(r.jobId) },
        [Subjects.filesPing]: { parse: P.ping, handle: () => this.ping() },
      },
      this.logger,
      this.metrics,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  private async create(request: Parameters<JobCreator['create']>[0]) {
    const view = await this.creator.create(request);
    this.runner.kick(view.jobId);
    return view;
  }

  private async ping(): Promise<{ service: string; ok: boolean }> {
    await this.db.query('SELECT 1');
    return { service: 'file-jobs', ok: true };
  }
}
