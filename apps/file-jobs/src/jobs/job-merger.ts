import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  EventSubjects,
  eventOfState,
  type FileEvent,
  Subjects,
  type UsageRecordEntry,
  type VerificationStatus,
} from '@emailverify/contracts';
import { isTransientMessagingError, JetStreamKit, MessageBus } from '@emailverify/messaging';
import { isTransientDatabaseError } from '@emailverify/persistence';
import { downloadLink, LOGGER, resultsUrl } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { FileJobsMetrics } from '../file-jobs.metrics';
import { broadcastStatus, isActive } from './job-status';
import { type JobRow, JobsRepository } from './jobs.repository';
import { MergeAbandoned, ResultWriter } from './result-writer';

/** The job's results by status, as usage entries under the mode of the key that uploaded it. */
function usageOf(job: JobRow): UsageRecordEntry[] {
  const counts: Record<VerificationStatus, number> = {
    valid: job.valid_emails,
    invalid: job.invalid_emails,
    unknown: job.unknown_emails,
    risky: job.risky_emails,
    disposable: job.disposable_emails,
    catchall: job.catchall_emails,
    role: job.role_emails,
  };
  return Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => ({
      accountId: job.account_id,
      mode: job.mode,
      status: status as VerificationStatus,
      count,
    }));
}

/** How often a merge that follows a running job looks for the next chunk's results. */
const FOLLOW_POLL_MS = 250;

/** A merge's hold on its job (see JobsRepository.claimMerge); `signal` is aborted when another merge took it. */
interface MergeLease {
  owner: string;
  signal: AbortSignal;
}

/**
 * Whether a merge stopped for a reason that says nothing about the job: it lost its lease, or PostgreSQL or
 * NATS could not be reached for a while (a restart). Such a merge stores nothing and is started again by the
 * runner's next pass; only a failure of the job's own data fails the job.
 */
function mergeInterrupted(err: unknown): boolean {
  return err instanceof MergeAbandoned || isTransientDatabaseError(err) || isTransientMessagingError(err);
}

/**
 * Ends jobs: writes the result file, settles the credits, and completes or fails the job, publishing its event
 * (recorded in the outbox with the state change). A job is merged once, under its merge lease, whichever
 * replica tries.
 */
@Injectable()
export class JobMerger {
  constructor(
    private readonly repo: JobsRepository,
    private readonly bus: MessageBus,
    private readonly kit: JetStreamKit,
    private readonly writer: ResultWriter,
    @Inject(FILE_JOBS_CONFIG) private readonly config: Readonly<FileJobsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: FileJobsMetrics,
  ) {}

  /**
   * Merges a job whose every chunk has been answered (or that is merging already), and completes it. When `stop`
   * is aborted (the process is stopping) while the result file is being written, the merge gives up storing
   * nothing and releases its lease at once: another replica, or the restarted process, merges the job again.
   */
  async finish(job: JobRow, stop: AbortSignal): Promise<void> {
    await this.underLease(job.id, (lease) => this.complete(job, lease, stop));
  }

  /**
   * Writes the result file while the job is still being verified, following its answered chunks in order, and
   * completes the job once every chunk has been answered and written: the job then completes moments after its
   * last chunk instead of a whole merge later. Gives up storing nothing (a later merge starts afresh) as soon as
   * the job stops being verified (paused, cancelled, failed) or `stop` is aborted.
   */
  async followAndFinish(job: JobRow, stop: AbortSignal): Promise<void> {
    await this.underLease(job.id, async (lease, current) => {
      // Under the lease, again: another replica may have completed the job, or it may have stopped.
      if (!isActive(current.status)) return;
      let written: string;
      try {
        written = await this.writer.write(current, {
          signal: lease.signal,
          follow: {
            pollMs: FOLLOW_POLL_MS,
            active: async () => {
              const now = await this.repo.findByIdInternal(job.id);
              // Addresses waiting for greylisting retries would hold this merge (and its slot) for the retries'
              // delays: it gives up, and the job is merged once they have settled.
              return !stop.aborted && now !== undefined && isActive(now.status) && now.waiting_emails === 0;
            },
          },
        });
      } catch (err) {
        if (mergeInterrupted(err)) {
          this.interrupted(job, err);
          return; // nothing was stored
        }
        await this.mergeFailed(current, err);
        return;
      }
      await this.complete(job, lease, stop, written);
    });
  }

  /**
   * Runs `work` holding the job's merge lease, renewed every third of FILE_MERGE_LEASE_SECONDS; does nothing
   * when another merge holds it. A renewal that finds the lease taken over aborts the lease's signal, and the
   * merge gives up storing nothing; one that cannot reach the database is tried again at the next turn (a
   * renewal after a restart keeps a lease nobody took meanwhile).
   */
  private async underLease(
    jobId: string,
    work: (lease: MergeLease, job: JobRow) => Promise<void>,
  ): Promise<void> {
    const seconds = this.config.FILE_MERGE_LEASE_SECONDS;
    const owner = randomUUID();
    const job = await this.repo.claimMerge(jobId, owner, seconds);
    if (!job) return;
    const lost = new AbortController();
    const renew = setInterval(
      () => {
        this.repo.renewMerge(jobId, owner, seconds).then(
          (held) => {
            if (!held) lost.abort(new MergeAbandoned(jobId));
          },
          (err: unknown) => this.logger.warn({ err, jobId }, 'merge lease not renewed yet'),
        );
      },
      (seconds * 1000) / 3,
    );
    try {
      await work({ owner, signal: lost.signal }, job);
    } finally {
      clearInterval(renew);
      // Released at once; when the database is away, the lease simply runs out.
      await this.repo.releaseMerge(jobId, owner).catch((err: unknown) => {
        this.logger.warn({ err, jobId }, 'merge lease not released; it runs out');
      });
    }
  }

  /**
   * Charges what was verified and refunds the rest of the reservation, and counts the job's results in the
   * account's daily usage; both idempotent on the credits side (the usage record is keyed by the job), so a
   * settlement repeated after a failure counts once. A sandbox job reserved nothing, so it settles no credits;
   * its results count in the sandbox's usage.
   */
  async settle(job: JobRow, used: number): Promise<void> {
    const requestId = job.request_id ?? undefined;
    if (job.mode !== 'sandbox') {
      await this.bus.request(
        Subjects.creditsSettle,
        { accountId: job.account_id, idempotencyKey: job.reservation_key, used },
        { requestId },
      );
    }
    const entries = usageOf(job);
    if (entries.length > 0)
      await this.bus.request(Subjects.creditsUsageRecord, { key: `file:${job.id}`, entries }, { requestId });
    await this.repo.markSettled(job.id);
  }

  /** Notes a job that reached its final state (one log line, one count): called once per job, by what ended it. */
  ended(job: JobRow): void {
    this.metrics.jobEnded(job.status);
    this.logger.info(
      {
        jobId: job.id,
        status: job.status,
        creditsUsed: job.credits_used,
        requestId: job.request_id ?? undefined,
      },
      'job ended',
    );
  }

  /**
   * Publishes the event of a job in a terminal state and clears its outbox row. The body is built from the
   * stored job alone (its timestamp is the job's completion), so a repeated publication is the same event.
   */
  async emit(job: JobRow): Promise<void> {
    const kind = eventOfState(job.status);
    if (!kind) return;
    // Receivers tell a sandbox job's event by `sandbox`; a live event has none, as before.
    const envelope = {
      timestamp: (job.completed_at ?? job.created_at).toISOString(),
      ...(job.mode === 'sandbox' ? { sandbox: true as const } : {}),
      accountId: job.account_id,
    };
    const ofJob = { job_id: job.id, file_name: job.file_name };
    let event: FileEvent;
    if (kind === 'file.failed') {
      event = {
        event: 'file.failed',
        ...envelope,
        data: {
          ...ofJob,
          status: 'failed',
          error: { code: job.error_code ?? 'JOB_FAILED', message: job.error_message ?? 'The job failed' },
          total_emails: job.unique_emails,
          processed_emails: job.processed_emails,
          credits_used: job.credits_used,
        },
      };
    } else {
      const link = downloadLink(this.config, job.id);
      const started = (job.started_at ?? job.created_at).getTime();
      event = {
        event: 'file.completed',
        ...envelope,
        data: {
          ...ofJob,
          total_emails: job.unique_emails,
          valid_emails: job.valid_emails,
          invalid_emails: job.invalid_emails,
          role_emails: job.role_emails,
          catchall_emails: job.catchall_emails,
          unknown_emails: job.unknown_emails,
          disposable_emails: job.disposable_emails,
          credits_used: job.credits_used,
          process_time_seconds: Math.max(0, ((job.completed_at?.getTime() ?? Date.now()) - started) / 1000),
          download_url: resultsUrl(this.config, job.id),
          direct_download_url: link.url,
          direct_download_expires_at: link.expiresAt,
        },
      };
    }
    const subject = event.event === 'file.completed' ? EventSubjects.completed : EventSubjects.failed;
    await this.kit.publish(subject, event, `${job.id}:${event.event}`, job.request_id ?? undefined);
    await this.repo.markEventPublished(job.id, event.event);
  }

  /**
   * Moves the job to merging, writes its result file (unless a following merge has `written` it), settles,
   * and completes the job. Runs under the job's merge lease; a merge interrupted by an unreachable database or
   * NATS leaves the job `merging` for the runner's next pass, which merges it again.
   */
  private async complete(job: JobRow, lease: MergeLease, stop: AbortSignal, written?: string): Promise<void> {
    const merging = await this.repo.transitionInternal(
      job.id,
      ['running', 'processing', 'merging'],
      'merging',
    );
    if (!merging) {
      // Finished by another replica meanwhile, or cancelled. Completing takes the merge lease, so a file written
      // by following (under it) can only belong to a job that was cancelled or failed since: not wanted.
      if (written) await (await this.kit.objectStore('files')).delete(written);
      return;
    }
    broadcastStatus(this.bus, merging);
    try {
      const resultObject =
        written ?? (await this.writer.write(merging, { signal: AbortSignal.any([lease.signal, stop]) }));
      const used = await this.repo.creditsUsed(job.id);
      await this.settle(merging, used);
      const status = merging.failed_chunks > 0 ? 'completed_with_warning' : 'completed';
      const done = await this.repo.transitionInternal(job.id, ['merging'], status, {
        completedAt: true,
        resultObject,
        creditsUsed: used,
        mergeOwner: lease.owner,
      });
      if (done) {
        this.ended(done);
        broadcastStatus(this.bus, done);
        await this.emitNow(done);
      } else {
        // Cancelled or deleted while merging: its result file is not wanted.
        await (await this.kit.objectStore('files')).delete(resultObject);
      }
    } catch (err) {
      if (mergeInterrupted(err)) this.interrupted(job, err);
      else await this.mergeFailed(merging, err);
    }
  }

  private interrupted(job: JobRow, err: unknown): void {
    this.logger.warn({ err, jobId: job.id }, 'merging interrupted; it starts again at the next pass');
  }

  private async mergeFailed(job: JobRow, err: unknown): Promise<void> {
    this.logger.error({ err, jobId: job.id }, 'merging failed; the job fails');
    await this.fail(job, { code: 'MERGE_FAILED', message: 'The result file could not be built' });
  }

  private async fail(job: JobRow, error: { code: string; message: string }): Promise<void> {
    const used = await this.repo.creditsUsed(job.id);
    await this.settle(job, used);
    const failed = await this.repo.transitionInternal(
      job.id,
      ['preparing', 'pending', 'running', 'processing', 'merging', 'paused'],
      'failed',
      { completedAt: true, creditsUsed: used, error },
    );
    if (failed) {
      this.ended(failed);
      broadcastStatus(this.bus, failed);
      await this.emitNow(failed);
    }
  }

  /** Publishes a job's event right after its state change; what fails here the recovery publishes later. */
  private async emitNow(job: JobRow): Promise<void> {
    try {
      await this.emit(job);
    } catch (err) {
      this.logger.warn({ err, jobId: job.id }, 'event not published yet; recovery publishes it');
    }
  }
}
