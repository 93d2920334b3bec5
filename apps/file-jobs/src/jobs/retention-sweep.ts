import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, PeriodicTask } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { JobFiles } from './job-files';

/**
 * Deletes the files of jobs past FILE_RETENTION_DAYS, and copies of partial results left behind, every
 * FILE_RETENTION_SWEEP_INTERVAL_MS.
 */
@Injectable()
export class RetentionSweep extends PeriodicTask {
  constructor(
    files: JobFiles,
    @Inject(FILE_JOBS_CONFIG) config: Readonly<FileJobsConfig>,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(
      'retention sweep',
      config.FILE_RETENTION_SWEEP_INTERVAL_MS,
      async () => {
        const swept = await files.sweepExpired();
        if (swept > 0) logger.info({ jobs: swept }, 'deleted the files of jobs past their retention');
        const copies = await files.removeStaleCopies();
        if (copies > 0) logger.info({ copies }, 'deleted copies of partial results left behind');
      },
      logger,
    );
  }
}
