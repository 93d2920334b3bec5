import { Inject, Injectable } from '@nestjs/common';
import {
  type AccountId,
  DomainError,
  FINISHED_JOB_STATES,
  type FileJobDeleteReply,
  type FileJobListReply,
  type FileJobListRequest,
  type FileJobRef,
  type FileJobResultsReply,
  type FileJobResultsRequest,
  type FileJobView,
  isTerminalJobState,
  type JobState,
  isUuid,
} from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { decodeCursor, encodeCursor } from './job-cursor';
import { JobFiles } from './job-files';
import { JobMerger } from './job-merger';
import { JobRunner } from './job-runner';
import { broadcastStatus } from './job-status';
import { toView } from './job-view';
import { type JobRow, JobsRepository } from './jobs.repository';
import { ResultWriter, statusColumnIndex } from './result-writer';

/** Reading and steering a customer's jobs: another account's job is "not found", never "forbidden". */
@Injectable()
export class JobsService {
  constructor(
    private readonly repo: JobsRepository,
    private readonly runner: JobRunner,
    private readonly merger: JobMerger,
    @Inject(MessageBus) private readonly bus: Pick<MessageBus, 'publish'>,
    private readonly files: JobFiles,
    private readonly writer: ResultWriter,
  ) {}

  async get(ref: FileJobRef): Promise<FileJobView> {
    return toView(await this.load(ref));
  }

  /**
   * One page of the account's jobs, newest first. A deleted job is gone from the list; one whose files retention
   * deleted stays, saying when. One row more than asked tells whether another page follows.
   */
  async list(request: FileJobListRequest): Promise<FileJobListReply> {
    const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
    const rows = await this.repo.listPage(request.accountId, {
      statuses: request.statuses,
      mode: request.mode,
      after,
      limit: request.limit + 1,
    });
    const page = rows.slice(0, request.limit);
    const last = page.at(-1);
    return {
      jobs: page.map((row) => ({
        ...toView(row),
        filesDeletedAt: row.files_deleted_at?.toISOString() ?? null,
      })),
      nextCursor:
        rows.length > request.limit && last
          ? encodeCursor({ createdAt: last.created_key, id: last.id })
          : null,
    };
  }

  async pause(ref: FileJobRef): Promise<FileJobView> {
    return this.move(ref, ['pending', 'running', 'processing'], 'paused');
  }

  async resume(ref: FileJobRef): Promise<FileJobView> {
    const view = await this.move(ref, ['paused'], 'pending');
    this.runner.kick(ref.jobId);
    return view;
  }

  async cancel(ref: FileJobRef): Promise<FileJobView> {
    const job = await this.load(ref);
    if (isTerminalJobState(job.status)) throw conflict(job.status, 'cancelled');
    const cancelled = await this.stop(ref, job);
    if (!cancelled) throw conflict((await this.load(ref)).status, 'cancelled');
    return toView(cancelled);
  }

  /**
   * Erases a job at once: its stored files, then its rows. A job still running is cancelled first, as the cancel
   * endpoint does (what was verified stays charged, the rest of the reservation goes back), so one call is
   * enough; a finished job's charges stand. Files go before rows: a failure in between leaves the job
   * listed, and deleting it again finishes the work.
   */
  async delete(ref: FileJobRef): Promise<FileJobDeleteReply> {
    const job = await this.load(ref);
    const cancelled = !isTerminalJobState(job.status) && (await this.stop(ref, job)) !== undefined;
    await this.files.remove(job);
    if (!(await this.repo.deleteJob(ref.accountId, ref.jobId))) {
      throw new DomainError('JOB_NOT_FOUND', `No job ${ref.jobId} for this account`);
    }
    return { jobId: job.id, cancelled };
  }

  /**
   * Where the job's results are. With `partial`, a job still under way answers with a copy of the rows verified
   * so far (a prefix of the final file, made for this request); a job that has ended answers as without it.
   */
  async results(request: FileJobResultsRequest): Promise<FileJobResultsReply> {
    const job = await this.load(request);
    if (!request.partial || isTerminalJobState(job.status)) return this.resultsOf(job);
    return {
      jobId: job.id,
      objectName: await this.writer.writePartial(job),
      fileName: resultFileName(job, '-partial-results.csv'),
      statusColumn: statusColumnIndex(job),
      temporary: true,
    };
  }

  /** For a signed download link, whose signature already names the job. */
  async locate(jobId: string): Promise<FileJobResultsReply & { accountId: AccountId; status: string }> {
    const job = isUuid(jobId) ? await this.repo.findByIdInternal(jobId) : undefined;
    if (!job) throw new DomainError('JOB_NOT_FOUND', 'Job not found');
    return { ...this.resultsOf(job), accountId: job.account_id, status: job.status };
  }

  /**
   * Cancels a job that has not ended: settles what was verified and tells whoever waits. Undefined when it
   * ended meanwhile.
   */
  private async stop(ref: FileJobRef, job: JobRow): Promise<JobRow | undefined> {
    const used = await this.repo.creditsUsed(job.id);
    const cancelled = await this.repo.transition(ref.accountId, ref.jobId, nonTerminal, 'cancelled', {
      completedAt: true,
      creditsUsed: used,
    });
    if (!cancelled) return undefined;
    // What was verified is charged; the rest of the reservation goes back.
    await this.merger.settle(cancelled, used);
    this.merger.ended(cancelled);
    broadcastStatus(this.bus, cancelled);
    return cancelled;
  }

  /** Where a job's result file is; a job whose files retention deleted says so. */
  private resultsOf(job: JobRow): FileJobResultsReply {
    if (job.files_deleted_at) throw this.files.deletedError(job.files_deleted_at);
    return resultsOf(job);
  }

  /** The caller's job; one of another account, or uploaded with a key of the other mode, is not found. */
  private async load(ref: FileJobRef): Promise<JobRow> {
    const job = isUuid(ref.jobId) ? await this.repo.find(ref.accountId, ref.jobId) : undefined;
    if (!job || (ref.mode !== undefined && job.mode !== ref.mode)) {
      throw new DomainError('JOB_NOT_FOUND', `No job ${ref.jobId} for this account`);
    }
    return job;
  }

  private async move(ref: FileJobRef, from: readonly JobState[], to: JobState): Promise<FileJobView> {
    const job = await this.load(ref);
    const moved = await this.repo.transition(ref.accountId, ref.jobId, from, to);
    if (!moved) throw conflict(job.status, to);
    broadcastStatus(this.bus, moved);
    return toView(moved);
  }
}

const nonTerminal: JobState[] = ['preparing', 'pending', 'running', 'processing', 'merging', 'paused'];

function conflict(status: JobState, wanted: JobState): DomainError {
  return new DomainError('INVALID_REQUEST', `The job is ${status}; it cannot become ${wanted}`, { status });
}

function resultsOf(job: JobRow): FileJobResultsReply {
  if (!FINISHED_JOB_STATES.includes(job.status) || !job.result_object) {
    throw new DomainError(
      'INVALID_REQUEST',
      `The job is ${job.status}; results are offered once it has completed`,
      {
        status: job.status,
      },
    );
  }
  return {
    jobId: job.id,
    objectName: job.result_object,
    fileName: resultFileName(job, '-results.csv'),
    statusColumn: statusColumnIndex(job),
  };
}

/** The download's name: the upload's without its extension, then `suffix`. */
function resultFileName(job: JobRow, suffix: string): string {
  return job.file_name.replace(/\.[^.]+$/, '') + suffix;
}
