import { Injectable } from '@nestjs/common';
import { AppMetrics } from '@emailverify/service-kit';
import type { JobState } from '@emailverify/contracts';

/** file-jobs' own metrics, declared in one place. */
@Injectable()
export class FileJobsMetrics extends AppMetrics {
  readonly jobsEnded = this.metrics.counter(
    'file_jobs_ended_total',
    'File jobs that reached a final state (completed, completed_with_warning, failed, cancelled), by that state',
    ['status'],
  );
  readonly chunkResults = this.metrics.counter(
    'file_chunk_results_total',
    'Chunk results applied to their jobs (once per chunk): verified, or failed after every delivery',
    ['outcome'],
  );

  jobEnded(status: JobState): void {
    this.jobsEnded.inc({ status });
  }
}
