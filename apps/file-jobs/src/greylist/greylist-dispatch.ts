import { periodicTask } from '@emailverify/service-kit';
import { FILE_JOBS_CONFIG, type FileJobsConfig } from '../config';
import { GreylistRetries } from './greylist-retries';

/** Sends the greylisted addresses whose delay has passed to the verifiers, every FILE_RECOVERY_INTERVAL_MS. */
export const GreylistDispatch = periodicTask(
  'greylisting retries',
  [GreylistRetries, FILE_JOBS_CONFIG],
  (retries: GreylistRetries, config: Readonly<FileJobsConfig>) => ({
    intervalMs: config.FILE_RECOVERY_INTERVAL_MS,
    run: async () => void (await retries.dispatchDue()),
  }),
);
