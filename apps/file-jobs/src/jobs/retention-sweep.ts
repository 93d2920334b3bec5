import { periodicTask } from '@emailverify/service-kit';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { JobFiles } from './job-files';

/** Deletes the files of jobs past FILE_RETENTION_DAYS, every FILE_RETENTION_SWEEP_INTERVAL_MS. */
export const RetentionSweep = periodicTask(
  'retention sweep',
  [JobFiles, FILE_JOBS_CONFIG],
  (files: JobFiles, config: Readonly<FileJobsConfig>) => ({
    intervalMs: config.FILE_RETENTION_SWEEP_INTERVAL_MS,
    run: () => files.sweepExpired(),
    done: { message: 'deleted the files of jobs past their retention', count: 'jobs' },
  }),
);

/**
 * Deletes copies of partial results a gateway left behind (it stopped mid-download), on the retention sweep's
 * interval.
 */
export const PartialCopiesSweep = periodicTask(
  'partial copies sweep',
  [JobFiles, FILE_JOBS_CONFIG],
  (files: JobFiles, config: Readonly<FileJobsConfig>) => ({
    intervalMs: config.FILE_RETENTION_SWEEP_INTERVAL_MS,
    run: () => files.removeStaleCopies(),
    done: { message: 'deleted copies of partial results left behind', count: 'copies' },
  }),
);
