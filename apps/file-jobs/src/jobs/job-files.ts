import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@emailverify/contracts';
import { JetStreamKit } from '@emailverify/messaging';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { type JobFilesRow, JobsRepository } from './jobs.repository';
import { PARTIAL_COPY_PREFIX, resultObjectName } from './result-writer';

/** Jobs whose files one retention pass deletes per query. */
const SWEEP_BATCH = 100;

/**
 * How long a copy of a job's partial results may stay. The gateway removes each once it has streamed it; one
 * left by a gateway that stopped in the middle goes at the first retention pass after this, which leaves a
 * slow client a whole day to read its copy.
 */
export const PARTIAL_COPY_MAX_AGE_MS = 24 * 3600 * 1000;

/**
 * A job's stored files: its upload and its result file in the object store. They are personal data, so they
 * are deleted FILE_RETENTION_DAYS after the job ended (the job's record and counts stay), or at once when the
 * customer deletes the job.
 */
@Injectable()
export class JobFiles {
  private readonly retentionDays: number;

  constructor(
    private readonly repo: JobsRepository,
    @Inject(JetStreamKit) private readonly kit: Pick<JetStreamKit, 'objectStore'>,
    @Inject(FILE_JOBS_CONFIG) config: Pick<FileJobsConfig, 'FILE_RETENTION_DAYS'>,
  ) {
    this.retentionDays = config.FILE_RETENTION_DAYS;
  }

  /** What a customer asking for a job's files is told once retention has deleted them: when, and why. */
  deletedError(deletedAt: Date): DomainError {
    return new DomainError(
      'JOB_NOT_FOUND',
      `The files of this job were deleted on ${deletedAt.toISOString()}: uploads and results are kept for ${this.retentionDays} days after a job ends`,
      { files_deleted_at: deletedAt.toISOString(), retention_days: this.retentionDays },
    );
  }

  /**
   * Removes the job's objects. The result file is removed by its name whether or not the job records it, so a
   * merge that stored it just before the job was stopped leaves nothing. Removing what is already gone is fine.
   */
  async remove(job: JobFilesRow): Promise<void> {
    const store = await this.kit.objectStore('files');
    const names = new Set([job.upload_object, resultObjectName(job.id)]);
    if (job.result_object) names.add(job.result_object);
    for (const name of names) await store.delete(name);
  }

  /** Removes copies of partial results older than PARTIAL_COPY_MAX_AGE_MS; returns how many. */
  async removeStaleCopies(now = Date.now()): Promise<number> {
    const store = await this.kit.objectStore('files');
    let removed = 0;
    for (const info of await store.list()) {
      if (info.deleted || !info.name.startsWith(PARTIAL_COPY_PREFIX)) continue;
      if (now - Date.parse(info.mtime) < PARTIAL_COPY_MAX_AGE_MS) continue;
      await store.delete(info.name);
      removed += 1;
    }
    return removed;
  }

  /**
   * One retention pass: deletes the files of every job that ended more than FILE_RETENTION_DAYS ago, objects
   * first, then the chunk rows, marking the job. A pass cut short (a crash, NATS away) leaves those jobs unmarked,
   * and the next pass removes what is left. Returns how many jobs lost their files.
   */
  async sweepExpired(): Promise<number> {
    let swept = 0;
    for (;;) {
      const due = await this.repo.filesPastRetentionInternal(this.retentionDays, SWEEP_BATCH);
      for (const job of due) {
        await this.remove(job);
        await this.repo.markFilesDeletedInternal(job.id);
      }
      swept += due.length;
      if (due.length < SWEEP_BATCH) return swept;
    }
  }
}
