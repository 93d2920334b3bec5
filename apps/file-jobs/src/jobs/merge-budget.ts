import type { JobRow } from './jobs.repository';

/**
 * What a merge keeps of one address that occurs again further down its file: the address and its result's
 * cells as the file shows them, with the map entry that holds them (an MX-only result of an ordinary address
 * takes about 200 bytes).
 */
export const RETAINED_BYTES_PER_ADDRESS = 256;

/**
 * The most a merge of this job keeps in memory: the results of the addresses that occur again further down the
 * file, which are at most as many as its repeated cells (cells that are not empty, less the distinct ones).
 * Known from the job's counts before the merge starts, whatever the state of the heap.
 */
export function mergeFootprint(job: Pick<JobRow, 'estimated_count' | 'unique_emails'>): number {
  return Math.max(0, job.estimated_count - job.unique_emails) * RETAINED_BYTES_PER_ADDRESS;
}

/**
 * Whether a process may start another merge: below `concurrency` merges, and within `budgetBytes` with the
 * footprints of those it runs. A merge alone always starts: whatever its file, one merge at a time is what
 * the process is sized for.
 */
export function mayStartMerge(
  running: readonly number[],
  footprint: number,
  { concurrency, budgetBytes }: { concurrency: number; budgetBytes: number },
): boolean {
  if (running.length === 0) return true;
  if (running.length >= concurrency) return false;
  return running.reduce((sum, bytes) => sum + bytes, footprint) <= budgetBytes;
}
