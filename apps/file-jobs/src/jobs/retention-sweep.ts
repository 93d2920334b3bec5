import { periodicTask } from '@emailverify/service-kit';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { JobFiles } from './job-files';

/** A sweep of the jobs' files, every FILE_RETENTION_SWEEP_INTERVAL_MS; `done` names what a run deleted. */
const filesSweep = (
  name: string,
  sweep: (files: JobFiles) => Promise<number>,
  done: { message: string; count: string },
) =>
  periodicTask(name, [JobFiles, FILE_JOBS_CONFIG], (files: JobFiles, config: Readonly<FileJobsConfig>) => ({
    intervalMs: config.FILE_RETENTION_SWEEP_INTERVAL_MS,
    run: () => sweep(files),
    done,
  }));

/** Deletes the files of jobs past FILE_RETENTION_DAYS. */
export const RetentionSweep = filesSweep('retention sweep', (files) => files.sweepExpired(), {
  message: 'deleted the files of jobs past their retention',
  count: 'jobs',
});

/** Deletes copies of partial results a gateway left behind (it stopped mid-download). */
export const PartialCopiesSweep = filesSweep('partial copies sweep', (files) => files.removeStaleCopies(), {
  message: 'deleted copies of partial results left behind',
  count: 'copies',
});
