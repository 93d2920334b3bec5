import { Inject, Injectable } from '@nestjs/common';
import {
  type ChunkMessage,
  type ChunkResultMessage,
  chunkDoneSubject,
  chunkMessageId,
  encodeChunkResultMessage,
  type PackedChunkItem,
  packChunkResults,
  packResultFields,
  Consumers,
  Streams,
} from '@emailverify/contracts';
import { type ConsumerHandle, JetStreamKit } from '@emailverify/messaging';
import { LOGGER } from '@emailverify/service-kit';
import { fallbackResult } from '@emailverify/verification';
import type { Logger } from 'pino';
import type { Histogram } from 'prom-client';
import { VERIFIER_CONFIG, type VerifierConfig } from '../config';
import { VerifierMetrics } from '../verifier.metrics';
import { SandboxService } from './sandbox.service';
import { VerificationService } from './verification.service';

export interface ChunkWorkerOptions {
  /** Chunks one process verifies at once. */
  concurrency: number;
  /** Deliveries of a chunk before it is given up as failed (its addresses become unknown, free). */
  maxDeliveries: number;
  /** How long a chunk may go without a heartbeat before it is handed to another worker. */
  ackWaitMs: number;
}

/**
 * Works the VERIFY_CHUNKS queue. A chunk's results are published with a message id derived from job and
 * chunk before the chunk is acknowledged, so a worker that dies in between only causes a redelivery whose
 * results are dropped as duplicates (or ignored by file-jobs): counted and charged once.
 */
@Injectable()
export class ChunkWorker {
  private handle?: ConsumerHandle;
  private readonly options: ChunkWorkerOptions;
  /** Chunk durations by outcome: verified, failed (given up) or retry (handed back). */
  private readonly chunkSeconds: Histogram<'outcome'>;

  constructor(
    private readonly kit: JetStreamKit,
    private readonly verification: VerificationService,
    private readonly sandbox: SandboxService,
    @Inject(VERIFIER_CONFIG) config: Readonly<VerifierConfig>,
    metrics: VerifierMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.options = {
      concurrency: config.FILE_CHUNK_CONCURRENCY,
      maxDeliveries: config.FILE_CHUNK_MAX_DELIVERIES,
      ackWaitMs: config.FILE_CHUNK_ACK_WAIT_MS,
    };
    this.chunkSeconds = metrics.chunks;
  }

  async start(): Promise<void> {
    for (const stream of [Streams.verifyChunks, Streams.chunkResults]) await this.kit.ensureStream(stream);
    this.handle = await this.kit.consume<ChunkMessage>(
      {
        stream: Streams.verifyChunks.name,
        durable: Consumers.verifierChunks,
        ackWaitMs: this.options.ackWaitMs,
        concurrency: this.options.concurrency,
      },
      async ({ payload, deliveryCount, working, signal }) => {
        // Long chunks (SMTP) keep their claim alive instead of being handed to another worker.
        const heartbeat = setInterval(working, Math.max(500, Math.floor(this.options.ackWaitMs / 3)));
        const started = performance.now();
        // One line per chunk (never per address): the job, the chunk, its size and how it went.
        const line = {
          jobId: payload.jobId,
          chunk: payload.chunk,
          addresses: payload.emails.length,
          deliveryCount,
        };
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const results = payload.sandbox
            ? this.sandbox.chunk(payload)
            : await this.verification.verifyChunk(payload);
          // Handed back at shutdown: another verifier has it now and reports it.
          if (signal.aborted) return 'ack';
          await this.publish({
            jobId: payload.jobId,
            chunk: payload.chunk,
            failed: false,
            results: packChunkResults(results),
            ...retryOf(payload),
            ...(payload.sandbox ? { sandbox: true } : {}),
          });
          this.chunkSeconds.observe({ outcome: 'verified' }, seconds());
          this.logger.info({ ...line, ms: Math.round(seconds() * 1000) }, 'chunk verified');
          return 'ack';
        } catch (err) {
          if (deliveryCount < this.options.maxDeliveries || signal.aborted) {
            this.chunkSeconds.observe({ outcome: 'retry' }, seconds());
            throw err;
          }
          this.logger.error({ ...line, err }, 'chunk failed on every delivery; reporting it failed');
          await this.publish({
            jobId: payload.jobId,
            chunk: payload.chunk,
            failed: true,
            results: packChunkResults(payload.emails.map(failedItem)),
            ...retryOf(payload),
          });
          this.chunkSeconds.observe({ outcome: 'failed' }, seconds());
          return 'ack';
        } finally {
          clearInterval(heartbeat);
        }
      },
      // The subject names the job (verify.chunk.<jobId>).
      (err, msg) =>
        this.logger.warn({ err, subject: msg.subject }, 'chunk verification failed; it will be redelivered'),
    );
  }

  /**
   * At shutdown (a rolling deploy, a scale-down): the chunks in hand go back to the queue at once, so other
   * verifiers take them now instead of after the ack wait.
   */
  async stop(): Promise<void> {
    if (!this.handle) return;
    try {
      const chunks = await this.handle.handBack();
      this.logger.info({ chunks }, 'stopping: chunks in hand handed back to the queue');
    } catch (err) {
      this.logger.error(
        { err },
        'stopping: chunks in hand could not be handed back; they return after the ack wait',
      );
    }
  }

  private async publish(message: ChunkResultMessage): Promise<void> {
    await this.kit.publishEncoded(
      chunkDoneSubject(message.jobId),
      encodeChunkResultMessage(message),
      chunkMessageId(message),
    );
  }
}

/** A retry of greylisted addresses answers as such (file-jobs applies it to the addresses it claimed). */
function retryOf(chunk: ChunkMessage): Pick<ChunkResultMessage, 'retry'> {
  return chunk.retry === undefined ? {} : { retry: chunk.retry };
}

/** An address of a chunk given up after every delivery: unknown, free, worth retrying. */
function failedItem(email: string): PackedChunkItem {
  return packResultFields(fallbackResult(email), 0, email);
}
