import {
  type ChunkMessage,
  type ChunkResultMessage,
  chunkSubject,
  EventSubjects,
  eventOfState,
  type FileEvent,
  jobStatusSubject,
  type JobStatusBroadcast,
  Streams,
  Subjects,
} from '@emailverify/contracts';
import type { ConsumerHandle, JetStreamKit, MessageBus } from '@emailverify/messaging';
import { type DataSource, withAdvisoryLock } from '@emailverify/persistence';
import { downloadLink, resultsUrl } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import type { FileJobsConfig } from '../config';
import type { JobRow, JobsRepository } from './jobs.repository';
import { MergeAbandoned, type ResultWriter } from './result-writer';

const ACTIVE = ['running', 'processing'] as const;
/** An outbox row this old was not published by the process that wrote it (it died, or publishing failed). */
const OUTBOX_GRACE_SECONDS = 10;
/** How often a merge that follows a running job looks for the next chunk's results. */
const FOLLOW_POLL_MS = 250;

/**
 * Drives jobs from pending to a terminal state. Everything it does is idempotent and re-derivable from the
 * database, so any replica may do it and a restarted process simply carries on: chunk results are applied
 * once (the chunk row says whether it was), windows are refilled from the queued chunks, and merging runs
 * under an advisory lock per job.
 */
export class JobRunner {
  private consumer?: ConsumerHandle;
  private timer?: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  private stopped = false;
  private readonly busy = new Set<string>();
  /** Merges of this process that started while their job was still being verified (by job id). */
  private readonly following = new Map<string, Promise<void>>();
  /**
   * Window refills running in this process (by job id). A result that arrives meanwhile asks the running refill
   * for one more pass instead of queueing a transaction of its own behind the job's refill lock.
   */
  private readonly refilling = new Map<string, { again: boolean }>();

  constructor(
    private readonly repo: JobsRepository,
    private readonly db: DataSource,
    private readonly bus: MessageBus,
    private readonly kit: JetStreamKit,
    private readonly writer: ResultWriter,
    private readonly config: Readonly<FileJobsConfig>,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    for (const stream of [Streams.verifyChunks, Streams.chunkResults, Streams.events])
      await this.kit.ensureStream(stream);
    this.consumer = await this.kit.consume<ChunkResultMessage>(
      {
        stream: Streams.chunkResults.name,
        durable: 'file-jobs-chunk-results',
        ackWaitMs: this.config.FILE_RESULTS_ACK_WAIT_MS,
        concurrency: 4,
      },
      async ({ payload }) => {
        await this.onChunkResult(payload);
        return 'ack';
      },
      (err) => this.logger.error({ err }, 'chunk result could not be applied; it will be redelivered'),
    );
    this.timer = setInterval(() => void this.recover(), this.config.FILE_RECOVERY_INTERVAL_MS);
    this.timer.unref();
    void this.recover();
    const idleMs = this.config.FILE_PARTIAL_OBJECT_MINUTES * 60_000;
    this.sweeper = setInterval(() => void this.removePartialObjects(idleMs), idleMs / 4);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    await this.consumer?.stop();
    // A following merge gives up at its next wait for results (another replica, or a restart, merges again).
    await Promise.allSettled([...this.following.values()]);
  }

  /** Asks the runner to look at a job now (after creation, resume). */
  kick(jobId: string): void {
    void this.advance(jobId).catch((err: unknown) =>
      this.logger.error({ err, jobId }, 'job could not advance'),
    );
  }

  /** Periodic pass over active jobs: what a crashed or restarted process left half-done is picked up here. */
  private async recover(): Promise<void> {
    if (this.stopped) return;
    try {
      for (const { id } of await this.repo.activeJobIds()) {
        await this.repo.requeueStale(id, this.config.FILE_CHUNK_STALE_SECONDS);
        await this.advance(id);
      }
      // Events whose publication a crash (or an unreachable JetStream) interrupted; the deterministic message id
      // and the webhooks service's unique deliveries keep a second publication from reaching anyone twice.
      for (const { job_id } of await this.repo.unpublishedEvents(OUTBOX_GRACE_SECONDS)) {
        const job = await this.repo.findById(job_id);
        if (job) await this.emit(job);
      }
    } catch (err) {
      this.logger.warn({ err }, 'recovery pass failed');
    }
  }

  /** Uploads and result files whose writer died mid-way (see FILE_PARTIAL_OBJECT_MINUTES). */
  private async removePartialObjects(idleMs: number): Promise<void> {
    if (this.stopped) return;
    try {
      const removed = await this.kit.removePartialObjects('files', idleMs);
      if (removed > 0) this.logger.info({ removed }, 'removed files left unfinished by a stopped process');
    } catch (err) {
      this.logger.warn({ err }, 'looking for unfinished files failed');
    }
  }

  private async advance(jobId: string): Promise<void> {
    if (this.busy.has(jobId) || this.stopped) return;
    this.busy.add(jobId);
    try {
      let job = await this.repo.findById(jobId);
      if (!job) return;
      if (job.status === 'pending') {
        job = (await this.repo.transition(null, jobId, ['pending'], 'running', { startedAt: true })) ?? job;
        this.broadcast(job);
      }
      if (job.status === 'merging' || (isActive(job.status) && allChunksAnswered(job))) {
        await this.finish(job);
        return;
      }
      if (isActive(job.status)) {
        await this.fillWindow(job);
        this.mergeEarly(job);
      }
    } finally {
      this.busy.delete(jobId);
    }
  }

  /**
   * Tops the job's window of chunks in flight up to FILE_CHUNKS_IN_FLIGHT, a quarter of the window at a time
   * (at least one chunk): one refill transaction per few answered chunks rather than one per chunk.
   */
  private async fillWindow(job: JobRow): Promise<void> {
    const running = this.refilling.get(job.id);
    if (running) {
      running.again = true;
      return;
    }
    const refill = { again: true };
    this.refilling.set(job.id, refill);
    const window = this.config.FILE_CHUNKS_IN_FLIGHT;
    const publish = async (chunk: number, emails: string[]) => {
      const message: ChunkMessage = {
        jobId: job.id,
        accountId: job.account_id,
        chunk,
        checkSmtp: job.check_smtp,
        jobCreatedAt: job.created_at.toISOString(),
        emails,
      };
      await this.kit.publish(chunkSubject(job.id), message, `${job.id}:${chunk}`);
    };
    try {
      while (refill.again && !this.stopped) {
        refill.again = false;
        await this.repo.publishChunks(job.id, window, publish, Math.max(1, Math.floor(window / 4)));
      }
    } finally {
      this.refilling.delete(job.id);
    }
  }

  private async onChunkResult(message: ChunkResultMessage): Promise<void> {
    const job = await this.repo.applyChunkResult(
      message.jobId,
      message.chunk,
      message.results,
      message.failed,
    );
    if (!job) return; // already applied, or the job is no longer running
    this.broadcast(job);
    if (isActive(job.status)) {
      if (allChunksAnswered(job)) await this.finish(job);
      else {
        await this.fillWindow(job);
        this.mergeEarly(job);
      }
    }
  }

  /**
   * Starts writing the result file while the job's last chunks are still being verified, once its pace says
   * FILE_EARLY_MERGE_SECONDS or fewer remain: the merge then follows the answered chunks, and the job completes
   * moments after its last chunk instead of a whole merge later. It runs in the background, under the same
   * per-job lock as any merge.
   */
  private mergeEarly(job: JobRow): void {
    const horizon = this.config.FILE_EARLY_MERGE_SECONDS;
    if (horizon <= 0 || this.stopped || this.following.has(job.id) || !job.started_at) return;
    const answered = job.completed_chunks + job.failed_chunks;
    if (answered === 0) return;
    const elapsedSeconds = (Date.now() - job.started_at.getTime()) / 1000;
    if (((job.total_chunks - answered) * elapsedSeconds) / answered > horizon) return;
    const run = this.finish(job, true)
      .catch((err: unknown) => this.logger.error({ err, jobId: job.id }, 'early merge failed'))
      .finally(() => this.following.delete(job.id));
    this.following.set(job.id, run);
  }

  /**
   * Merges the result file, settles credits, and completes the job; once, under a per-job lock. With `follow`,
   * the file is written while the job is still being verified (mergeEarly), and the job moves to merging only
   * once every chunk has been answered and written.
   */
  private async finish(job: JobRow, follow = false): Promise<void> {
    // This process already merges the job, following its chunks: that merge completes it.
    if (!follow && this.following.has(job.id)) return;
    await withAdvisoryLock(this.db, `merge:${job.id}`, async () => {
      let written: string | undefined;
      if (follow) {
        // Under the lock, again: another replica may have completed the job, or it may have stopped.
        const current = await this.repo.findById(job.id);
        if (!current || !isActive(current.status)) return;
        try {
          written = await this.writer.write(current, {
            pollMs: FOLLOW_POLL_MS,
            active: async () => {
              const now = await this.repo.findById(job.id);
              return !this.stopped && now !== undefined && isActive(now.status);
            },
          });
        } catch (err) {
          if (err instanceof MergeAbandoned) return; // nothing was stored; a later merge starts afresh
          await this.mergeFailed(current, err);
          return;
        }
      }
      const merging = await this.repo.transition(
        null,
        job.id,
        ['running', 'processing', 'merging'],
        'merging',
      );
      if (!merging) {
        // Finished by another replica meanwhile, or cancelled. Completing takes this lock, so a file written
        // by following (under it) can only belong to a job that was cancelled or failed since: not wanted.
        if (written) await (await this.kit.objectStore('files')).delete(written);
        return;
      }
      this.broadcast(merging);
      try {
        const resultObject = written ?? (await this.writer.write(merging));
        const used = await this.repo.creditsUsed(job.id);
        await this.settle(merging, used);
        const status = merging.failed_chunks > 0 ? 'completed_with_warning' : 'completed';
        const done = await this.repo.transition(null, job.id, ['merging'], status, {
          completedAt: true,
          resultObject,
          creditsUsed: used,
        });
        if (done) {
          this.broadcast(done);
          await this.emitNow(done);
        }
      } catch (err) {
        await this.mergeFailed(merging, err);
      }
    });
  }

  private async mergeFailed(job: JobRow, err: unknown): Promise<void> {
    this.logger.error({ err, jobId: job.id }, 'merging failed; the job fails');
    await this.fail(job, { code: 'MERGE_FAILED', message: 'The result file could not be built' });
  }

  async fail(job: JobRow, error: { code: string; message: string }): Promise<void> {
    const used = await this.repo.creditsUsed(job.id);
    await this.settle(job, used);
    const failed = await this.repo.transition(
      null,
      job.id,
      ['preparing', 'pending', 'running', 'processing', 'merging', 'paused'],
      'failed',
      { completedAt: true, creditsUsed: used, error },
    );
    if (failed) {
      this.broadcast(failed);
      await this.emitNow(failed);
    }
  }

  /** Charges what was verified and refunds the rest of the reservation; idempotent on the credits side. */
  async settle(job: JobRow, used: number): Promise<void> {
    await this.bus.request(Subjects.creditsSettle, {
      accountId: job.account_id,
      idempotencyKey: job.reservation_key,
      used,
    });
    await this.repo.markSettled(job.id);
  }

  broadcast(job: JobRow): void {
    this.bus.publish(jobStatusSubject(job.id), {
      jobId: job.id,
      status: job.status,
      processedEmails: job.processed_emails,
    } satisfies JobStatusBroadcast);
  }

  /** Publishes a job's event right after its state change; what fails here the recovery publishes later. */
  private async emitNow(job: JobRow): Promise<void> {
    try {
      await this.emit(job);
    } catch (err) {
      this.logger.warn({ err, jobId: job.id }, 'event not published yet; recovery publishes it');
    }
  }

  /**
   * Publishes the event of a job in a terminal state and clears its outbox row. The body is built from the
   * stored job alone (its timestamp is the job's completion), so a repeated publication is the same event.
   */
  private async emit(job: JobRow): Promise<void> {
    const kind = eventOfState(job.status);
    if (!kind) return;
    const timestamp = (job.completed_at ?? job.created_at).toISOString();
    let event: FileEvent;
    if (kind === 'file.failed') {
      event = {
        event: 'file.failed',
        timestamp,
        accountId: job.account_id,
        data: {
          job_id: job.id,
          file_name: job.file_name,
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
        timestamp,
        accountId: job.account_id,
        data: {
          job_id: job.id,
          file_name: job.file_name,
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
    await this.kit.publish(subject, event, `${job.id}:${event.event}`);
    await this.repo.markEventPublished(job.id, event.event);
  }
}

/** Being verified: running or processing. */
function isActive(status: JobRow['status']): boolean {
  return (ACTIVE as readonly string[]).includes(status);
}

function allChunksAnswered(job: JobRow): boolean {
  return job.completed_chunks + job.failed_chunks >= job.total_chunks;
}
