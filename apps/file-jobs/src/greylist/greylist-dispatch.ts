import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, PeriodicTask } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { GreylistRetries } from './greylist-retries';

/** Sends the greylisted addresses whose delay has passed to the verifiers, every FILE_RECOVERY_INTERVAL_MS. */
@Injectable()
export class GreylistDispatch extends PeriodicTask {
  constructor(
    retries: GreylistRetries,
    @Inject(FILE_JOBS_CONFIG) config: Readonly<FileJobsConfig>,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(
      'greylisting retries',
      config.FILE_RECOVERY_INTERVAL_MS,
      async () => void (await retries.dispatchDue()),
      logger,
    );
  }
}
