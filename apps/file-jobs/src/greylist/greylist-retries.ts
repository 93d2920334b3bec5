import { Inject, Injectable } from '@nestjs/common';
import {
  type ChunkMessage,
  type ChunkResultMessage,
  chunkItemsOf,
  chunkMessageId,
  chunkSubject,
} from '@emailverify/contracts';
import { JetStreamKit } from '@emailverify/messaging';
import { LOGGER } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import type { WaitingPlan } from '../jobs/chunks.repository';
import type { JobRow } from '../jobs/jobs.repository';
import { GreylistRepository } from './greylist.repository';
import { waitingPositions } from './retry-schedule';

/** Retries claimed per statement; a dispatch pass goes on while it fills them. */
const DISPATCH_BATCH = 500;

export interface GreylistRetriesOptions {
  /** GREYLIST_RETRY_DELAYS in milliseconds; empty: no retries. */
  delays: readonly number[];
  /** A retry sent this long ago and never answered is sent again (FILE_CHUNK_STALE_SECONDS). */
  staleSeconds: number;
}

/**
 * Greylisted addresses retried inside their job. The verifier answers a greylisted address unknown `greylisted`
 * (its result is never cached); file-jobs keeps it waiting in the job and, after each delay of
 * GREYLIST_RETRY_DELAYS, sends it to the verifiers again as a retry of its chunk, with the same MAIL FROM and
 * through the same egress (the proxy of an address is chosen from the address, on every verifier). The job
 * is answered once every waiting address has settled: accepted or refused at a retry (charged as any fresh
 * result), or still greylisted after the last one (unknown `greylisted`, free).
 */
@Injectable()
export class GreylistRetries {
  private readonly options: GreylistRetriesOptions;

  constructor(
    private readonly repo: GreylistRepository,
    private readonly kit: JetStreamKit,
    @Inject(FILE_JOBS_CONFIG) config: Readonly<FileJobsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.options = { delays: config.GREYLIST_RETRY_DELAYS, staleSeconds: config.FILE_CHUNK_STALE_SECONDS };
  }

  /**
   * The addresses of a chunk's first answer that wait for a retry, if any. A sandbox job's greylisted answers
   * are the table's, which a retry would only give again: they settle at once.
   */
  waitingOf(message: ChunkResultMessage): WaitingPlan | undefined {
    if (message.failed || message.sandbox || message.results.counts.greylisted === 0) return undefined;
    const items = chunkItemsOf(message.results.text);
    const positions = waitingPositions(items, this.options.delays);
    if (positions.length === 0) return undefined;
    return GreylistRepository.waiting(
      message.jobId,
      message.chunk,
      items,
      positions,
      this.options.delays[0]!,
    );
  }

  /** Applies the answer to a retry (message.retry set); the job when addresses settled. */
  apply(message: ChunkResultMessage & { retry: string }): Promise<JobRow | undefined> {
    return this.repo.applyRetry(
      message.jobId,
      message.chunk,
      message.retry,
      chunkItemsOf(message.results.text),
      message.failed,
      this.options.delays,
    );
  }

  /** Sends the retries that are due (of running jobs: a paused job's wait until it is resumed). */
  async dispatchDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const claimed = await this.repo.dispatchDue(DISPATCH_BATCH, this.options.staleSeconds, async (due) => {
        const message: ChunkMessage = {
          jobId: due.jobId,
          accountId: due.accountId,
          chunk: due.chunk,
          checkSmtp: due.checkSmtp,
          enrich: due.enrich,
          jobCreatedAt: due.jobCreatedAt.toISOString(),
          emails: due.emails,
          retry: due.claim,
        };
        await this.kit.publish(
          chunkSubject(due.jobId),
          message,
          chunkMessageId(message),
          due.requestId ?? undefined,
        );
      });
      sent += claimed;
      if (claimed < DISPATCH_BATCH) break;
    }
    // One line per pass, never per address.
    if (sent > 0) this.logger.info({ addresses: sent }, 'greylisted addresses sent for a retry');
    return sent;
  }
}
