import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { RouteServer } from '@emailverify/service-kit';
import { FileJobsPayloads as P } from './file-jobs.schemas';
import { JobCreator } from './jobs/job-creator';
import { JobRunner } from './jobs/job-runner';
import { JobsService } from './jobs/jobs.service';

/** NATS entry points of file-jobs (each one line into a service), and the runner's lifecycle. */
@Injectable()
export class FileJobsHandler implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly server: RouteServer,
    private readonly creator: JobCreator,
    private readonly jobs: JobsService,
    private readonly runner: JobRunner,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.start();
    const j = this.jobs;
    this.server.serveRoutes(QueueGroups.fileJobs, Subjects.filesPing, {
      [Subjects.filesJobCreate]: { parse: P.create, handle: (r, ctx) => this.create(r, ctx.requestId) },
      [Subjects.filesJobGet]: { parse: P.ref, handle: (r) => j.get(r) },
      [Subjects.filesJobPause]: { parse: P.ref, handle: (r) => j.pause(r) },
      [Subjects.filesJobResume]: { parse: P.ref, handle: (r) => j.resume(r) },
      [Subjects.filesJobCancel]: { parse: P.ref, handle: (r) => j.cancel(r) },
      [Subjects.filesJobResults]: { parse: P.results, handle: (r) => j.results(r) },
      [Subjects.filesJobLocate]: { parse: P.locate, handle: (r) => j.locate(r.jobId) },
      [Subjects.filesJobDelete]: { parse: P.ref, handle: (r) => j.delete(r) },
      [Subjects.filesJobList]: { parse: P.list, handle: (r) => j.list(r) },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  private async create(request: Parameters<JobCreator['create']>[0], requestId: string) {
    const view = await this.creator.create(request, requestId);
    this.runner.kick(view.jobId);
    return view;
  }
}
