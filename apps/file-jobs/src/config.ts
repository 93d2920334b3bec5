import { baseConfigShape, int, serviceConfig, withDownloadLinks } from '@emailverify/service-kit';
import { z } from 'zod';
import { greylistDelays } from './greylist/retry-schedule';

export const fileJobsConfigSchema = withDownloadLinks({
  ...baseConfigShape,
  HTTP_PORT: int(3103, 0, 65535),
  FILE_MAX_EMAILS: int(1_000_000, 1),
  /** Addresses per chunk published to the verifiers. */
  FILE_CHUNK_SIZE: int(500, 1, 10_000),
  /**
   * Chunks of one job published and not yet answered; pause stops refilling this window. It is topped up a
   * quarter of it at a time (at least one chunk). It covers the chunks being verified (FILE_CHUNK_CONCURRENCY
   * per verifier) and those whose results wait to be applied, with some to spare: at 16, two verifiers waited
   * for work while answered chunks queued for file-jobs.
   */
  FILE_CHUNKS_IN_FLIGHT: int(32, 1, 10_000),
  FILE_MAX_LINE_BYTES: int(1_048_576, 1024),
  FILE_MAX_UNZIPPED_BYTES: int(512 * 1024 * 1024, 1024 * 1024),
  /** A chunk published this long ago and never answered is published again (its first publish was lost). */
  FILE_CHUNK_STALE_SECONDS: int(300, 5),
  /** How often each replica looks for jobs needing work (after crashes, restarts, resumes). */
  FILE_RECOVERY_INTERVAL_MS: int(5000, 100),
  /**
   * The result file starts being written while the last chunks are still being verified, once the job's pace
   * says this many seconds or fewer remain; it then follows the answered chunks in order. 0 waits for every
   * chunk, as the merge otherwise does.
   */
  FILE_EARLY_MERGE_SECONDS: int(60, 0, 3600),
  /**
   * An upload or result file whose writer died mid-way (a gateway or file-jobs process killed) leaves stored
   * chunks that no file refers to; they are removed once nothing was added to them for this long. Each replica
   * looks every quarter of it.
   */
  FILE_PARTIAL_OBJECT_MINUTES: int(60, 1, 7 * 24 * 60),
  /**
   * Merges (result files being written) one process runs at once; a job past the cap is merged when a merge
   * ends. Each merge uses pooled connections one query at a time, never one for its whole length.
   */
  FILE_MERGE_CONCURRENCY: int(4, 1, 100),
  /**
   * A merge holds its job for this long and renews it every third of it; when its process dies (or loses the
   * database for this long) another process takes the merge over once it has run out.
   */
  FILE_MERGE_LEASE_SECONDS: int(30, 3, 3600),
  /** Chunk results a crashed file-jobs process held are redelivered after this long. */
  FILE_RESULTS_ACK_WAIT_MS: int(20_000, 1_000, 600_000),
  /**
   * Uploads and result files (and the addresses kept per chunk) are deleted this many days after their job
   * ended; the job's record and counts stay. A fraction of a day is allowed (0.5 is twelve hours).
   */
  FILE_RETENTION_DAYS: z.coerce.number().positive().max(36_500).default(30),
  /**
   * With check_smtp, a greylisted address waits inside its job and is verified again after each of these delays
   * before it settles as unknown `greylisted`. Empty: no retries.
   */
  GREYLIST_RETRY_DELAYS: greylistDelays,
  /** How often each replica looks for jobs past FILE_RETENTION_DAYS. */
  FILE_RETENTION_SWEEP_INTERVAL_MS: int(3_600_000, 100, 86_400_000),
});
export type FileJobsConfig = z.infer<typeof fileJobsConfigSchema>;

export const fileJobsConfig = serviceConfig('file-jobs', fileJobsConfigSchema, {
  keepEmpty: ['GREYLIST_RETRY_DELAYS'],
});
/** The token of the service's typed config, which its classes inject (`@Inject(FILE_JOBS_CONFIG)`). */
export const FILE_JOBS_CONFIG = fileJobsConfig.token;
