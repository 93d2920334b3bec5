import { Inject, Injectable } from '@nestjs/common';
import { getHeapStatistics } from 'node:v8';
import {
  type ChunkMessage,
  type ChunkResultMessage,
  chunkMessageId,
  chunkSubject,
  Consumers,
  decodeChunkResultMessage,
  Streams,
} from '@emailverify/contracts';
import { type ConsumerHandle, JetStreamKit, MessageBus, withRequestId } from '@emailverify/messaging';
import { Batches, LOGGER } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { FileJobsMetrics } from '../file-jobs.metrics';
import { GreylistRetries } from '../greylist/greylist-retries';
import { JobMerger } from './job-merger';
import { broadcastStatus, isActive } from './job-status';
import { type ChunkResultToApply, ChunksRepository } from './chunks.repository';
import { type JobRow, JobsRepository } from './jobs.repository';
import { mayStartMerge, mergeFootprint } from './merge-budget';

/** An outbox row this old was not published by the process that wrote it (it died, or publishing failed). */
const OUTBOX_GRACE_SECONDS = 10;
/**
 * Chunk results one process holds at once, applied together when they arrived while the previous ones were
 * being applied (a backlog behind the job row's lock is what held them back).
 */
const RESULTS_IN_HAND = 16;

/**
 * Drives jobs from pending to their merge (JobMerger ends them). Everything it does is idempotent and
 * re-derivable from the database, so any replica may do it and a restarted process simply carries on: chunk
 * results are applied once (the chunk row says whether it was), windows are refilled from the queued chunks,
 * and merging runs under a lease per job, at most FILE_MERGE_CONCURRENCY merges per process, in the
 * background: the consumer of chunk results never waits for a merge.
 */
@Injectable()
export class JobRunner {
  private consumer?: ConsumerHandle;
  private timer?: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  /** Aborted when the process stops: timers do nothing more, and a following merge gives up. */
  private readonly stopping = new AbortController();
  private readonly busy = new Set<string>();
  /** Merges this process runs (by job id), whether they follow a job still being verified or finish one. */
  private readonly merges = new Map<string, { run: Promise<void>; footprint: number }>();
  /** A merge was not started for want of a free slot: the next one to end looks again at once. */
  private turnedAway = false;
  /**
   * Window refills running in this process (by job id). A result that arrives meanwhile asks the running refill
   * for one more pass instead of queueing a transaction of its own behind the job's refill lock.
   */
  private readonly refilling = new Map<string, { again: boolean }>();
  /** Chunk results that arrive while others are being applied, applied together next (one transaction). */
  private readonly applying: Batches<ChunkResultToApply, JobRow | undefined>;

  constructor(
    private readonly repo: JobsRepository,
    private readonly chunks: ChunksRepository,
    private readonly bus: MessageBus,
    private readonly kit: JetStreamKit,
    private readonly merger: JobMerger,
    @Inject(FILE_JOBS_CONFIG) private readonly config: Readonly<FileJobsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: FileJobsMetrics,
    private readonly greylist: GreylistRetries,
  ) {
    this.applying = new Batches((items) => this.chunks.applyChunkResults(items), RESULTS_IN_HAND);
  }

  async start(): Promise<void> {
    for (const stream of [Streams.verifyChunks, Streams.chunkResults, Streams.events])
      await this.kit.ensureStream(stream);
    this.consumer = await this.kit.consume<ChunkResultMessage>(
      {
        stream: Streams.chunkResults.name,
        durable: Consumers.fileJobsChunkResults,
        ackWaitMs: this.config.FILE_RESULTS_ACK_WAIT_MS,
        concurrency: RESULTS_IN_HAND,
      },
      async ({ payload }) => {
        await this.onChunkResult(payload);
        return 'ack';
      },
      (err) => this.logger.error({ err }, 'chunk result could not be applied; it will be redelivered'),
      decodeChunkResultMessage,
    );
    this.timer = setInterval(() => void this.recover(), this.config.FILE_RECOVERY_INTERVAL_MS);
    this.timer.unref();
    void this.recover();
    const idleMs = this.config.FILE_PARTIAL_OBJECT_MINUTES * 60_000;
    this.sweeper = setInterval(() => void this.removePartialObjects(idleMs), idleMs / 4);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.timer);
    clearInterval(this.sweeper);
    await this.consumer?.stop();
    // A merge writing a result file gives up (a following one at its next wait for results), storing nothing
    // and releasing its lease: another replica, or a restart, merges again at once.
    await Promise.allSettled([...this.merges.values()].map((m) => m.run));
  }

  /** Asks the runner to look at a job now (after creation, resume). */
  kick(jobId: string): void {
    void this.advance(jobId).catch((err: unknown) =>
      this.logger.error({ err, jobId }, 'job could not advance'),
    );
  }

  /** Periodic pass over active jobs: what a crashed or restarted process left half-done is picked up here. */
  private async recover(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    try {
      for (const { id } of await this.repo.activeJobIds()) {
        await this.chunks.requeueStale(id, this.config.FILE_CHUNK_STALE_SECONDS);
        await this.advance(id);
      }
      // Events whose publication a crash (or an unreachable JetStream) interrupted; the deterministic message id
      // and the webhooks service's unique deliveries keep a second publication from reaching anyone twice.
      for (const { job_id } of await this.repo.unpublishedEvents(OUTBOX_GRACE_SECONDS)) {
        const job = await this.repo.findByIdInternal(job_id);
        if (job) await this.merger.emit(job);
      }
    } catch (err) {
      this.logger.warn({ err }, 'recovery pass failed');
    }
  }

  /** Uploads and result files whose writer died mid-way (see FILE_PARTIAL_OBJECT_MINUTES). */
  private async removePartialObjects(idleMs: number): Promise<void> {
    if (this.stopping.signal.aborted) return;
    try {
      const removed = await this.kit.removePartialObjects('files', idleMs);
      if (removed > 0) this.logger.info({ removed }, 'removed files left unfinished by a stopped process');
    } catch (err) {
      this.logger.warn({ err }, 'looking for unfinished files failed');
    }
  }

  private async advance(jobId: string): Promise<void> {
    if (this.busy.has(jobId) || this.stopping.signal.aborted) return;
    this.busy.add(jobId);
    try {
      const job = await this.repo.findByIdInternal(jobId);
      if (!job) return;
      // Whatever runs this pass (a kick, the recovery), its work belongs to the request that created the job.
      await inJob(job, () => this.step(job));
    } finally {
      this.busy.delete(jobId);
    }
  }

  /** One pass of `advance`: start a pending job, then merge it or top its window up. */
  private async step(loaded: JobRow): Promise<void> {
    let job = loaded;
    if (job.status === 'pending') {
      job = (await this.repo.transitionInternal(job.id, ['pending'], 'running', { startedAt: true })) ?? job;
      broadcastStatus(this.bus, job);
    }
    if (job.status === 'merging' || (isActive(job.status) && allChunksAnswered(job))) {
      this.startFinishing(job);
      return;
    }
    if (isActive(job.status)) {
      await this.fillWindow(job);
      this.mergeEarly(job);
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
        enrich: job.enrich,
        ...(job.mode === 'sandbox' ? { sandbox: true } : {}),
        jobCreatedAt: job.created_at.toISOString(),
        emails,
      };
      await this.kit.publish(
        chunkSubject(job.id),
        message,
        chunkMessageId(message),
        job.request_id ?? undefined,
      );
    };
    try {
      while (refill.again && !this.stopping.signal.aborted) {
        refill.again = false;
        await this.chunks.publishChunks(job.id, window, publish, Math.max(1, Math.floor(window / 4)));
      }
    } finally {
      this.refilling.delete(job.id);
    }
  }

  private async onChunkResult(message: ChunkResultMessage): Promise<void> {
    const { retry } = message;
    const waiting = retry === undefined ? this.greylist.waitingOf(message) : undefined;
    const job =
      retry !== undefined
        ? await this.greylist.apply({ ...message, retry })
        : waiting
          ? await this.chunks.applyChunkResult(
              message.jobId,
              message.chunk,
              message.results,
              message.failed,
              waiting,
            )
          : await this.applying.add({
              jobId: message.jobId,
              chunk: message.chunk,
              results: message.results,
              failed: message.failed,
            });
    if (!job) return; // already applied, or the job is no longer running
    this.metrics.chunkResults.inc({ outcome: message.failed ? 'failed' : 'verified' });
    // One line per chunk, never per address.
    this.logger.info(
      {
        jobId: job.id,
        chunk: message.chunk,
        failed: message.failed,
        addresses: message.results.counts.addresses,
      },
      'chunk result applied',
    );
    broadcastStatus(this.bus, job);
    if (isActive(job.status)) {
      if (allChunksAnswered(job)) this.startFinishing(job);
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
    // Addresses waiting for greylisting retries would hold the merge (and its slot) for the retries' delays.
    if (horizon <= 0 || !job.started_at || job.waiting_emails > 0) return;
    const answered = job.completed_chunks + job.failed_chunks;
    if (answered === 0) return;
    const elapsedSeconds = (Date.now() - job.started_at.getTime()) / 1000;
    if (((job.total_chunks - answered) * elapsedSeconds) / answered > horizon) return;
    this.startMerge(job, () => this.merger.followAndFinish(job, this.stopping.signal));
  }

  /** Merges and completes a job whose chunks are all answered, in the background (see startMerge). */
  private startFinishing(job: JobRow): void {
    this.startMerge(job, () => this.merger.finish(job, this.stopping.signal));
  }

  /**
   * Starts merging a job in the background (following its chunks, or finishing it), unless this process merges
   * it already (a following merge completes the job itself) or runs FILE_MERGE_CONCURRENCY merges: then the
   * end of a running merge, or the next recovery pass, starts it. A merge that fails for want of PostgreSQL or
   * NATS leaves the job as it was, and it is merged again the same way.
   */
  private startMerge(job: JobRow, merge: () => Promise<void>): void {
    if (this.stopping.signal.aborted || this.merges.has(job.id)) return;
    // A merge keeps the results of the addresses that repeat further down its file, which a file can make large:
    // merges run side by side only while what they may keep together fits in half the heap (see merge-budget).
    const footprint = mergeFootprint(job);
    const running = [...this.merges.values()].map((m) => m.footprint);
    const limits = {
      concurrency: this.config.FILE_MERGE_CONCURRENCY,
      budgetBytes: getHeapStatistics().heap_size_limit / 2,
    };
    if (!mayStartMerge(running, footprint, limits)) {
      this.turnedAway = true;
      return;
    }
    const run = merge()
      .catch((err: unknown) =>
        this.logger.warn({ err, jobId: job.id }, 'merging did not end; it starts again at the next pass'),
      )
      .finally(() => {
        this.merges.delete(job.id);
        if (this.turnedAway) {
          this.turnedAway = false;
          void this.recover();
        }
      });
    this.merges.set(job.id, { run, footprint });
  }
}

/** Runs `work` as part of the request that created the job (when it is known). */
function inJob<T>(job: JobRow, work: () => Promise<T>): Promise<T> {
  return job.request_id ? withRequestId(job.request_id, work) : work();
}

function allChunksAnswered(job: JobRow): boolean {
  return job.completed_chunks + job.failed_chunks >= job.total_chunks;
}
