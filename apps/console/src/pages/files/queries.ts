// The Files pages' requests: one query key per thing, so a change made on one page refreshes the others.
import type { Schemas } from '@emailverify/client';
import { api, unwrap } from '../../api/client';
import { queryClient } from '../../api/queries';

export type JobStatus = Schemas['FileJobStatus'];
export type JobListItem = Schemas['FileJobList']['jobs'][number];
export type JobAction = 'pause' | 'resume' | 'cancel' | 'delete';

/** Jobs per page of the list. */
export const PAGE_SIZE = 10;

/**
 * How long one status request may wait for the job to end. The status endpoint's `timeout` answers as soon as
 * the job ends (so the page shows the end at once) or when the time is up (so progress shows every few seconds):
 * while a job runs, the page asks again as each reply comes.
 */
export const STATUS_WAIT_SECONDS = 3;

export const filesKeys = {
  /** Every files query (the overview's recent jobs too): invalidated after any change. */
  all: ['files'] as const,
  page: (cursor: string | undefined) => ['files', 'list', 'page', PAGE_SIZE, cursor ?? ''] as const,
  status: (jobId: string) => ['files', 'status', jobId] as const,
};

export function fetchPage(cursor: string | undefined, signal: AbortSignal) {
  return unwrap(
    api().GET('/v1/verify/file', {
      params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
      signal,
    }),
  );
}

/** The latest 100 jobs (the most one page holds). */
export function fetchLatest(signal: AbortSignal) {
  return unwrap(api().GET('/v1/verify/file', { params: { query: { limit: 100 } }, signal }));
}

export function fetchStatus(jobId: string, waitSeconds: number, signal: AbortSignal) {
  return unwrap(
    api().GET('/v1/verify/file/{jobId}', {
      params: { path: { jobId }, query: waitSeconds > 0 ? { timeout: waitSeconds } : {} },
      signal,
    }),
  );
}

/** Pauses, resumes, cancels or deletes a job; afterwards every files query is asked again. */
export async function runJobAction(jobId: string, action: JobAction): Promise<void> {
  const client = api();
  const path = { params: { path: { jobId } } };
  if (action === 'delete') {
    await unwrap(client.DELETE('/v1/verify/file/{jobId}', path));
    // Only the lists: the deleted job's own page is left (its status would answer 404).
    await queryClient.invalidateQueries({ queryKey: ['files', 'list'] });
    return;
  }
  const status =
    action === 'pause'
      ? await unwrap(client.POST('/v1/verify/file/{jobId}/pause', path))
      : action === 'resume'
        ? await unwrap(client.POST('/v1/verify/file/{jobId}/resume', path))
        : await unwrap(client.POST('/v1/verify/file/{jobId}/cancel', path));
  queryClient.setQueryData(filesKeys.status(jobId), status);
  await queryClient.invalidateQueries({ queryKey: filesKeys.all });
}

/** A job's file name as the list last showed it (the status reply has none). */
export function knownFileName(jobId: string): string | undefined {
  for (const [, data] of queryClient.getQueriesData<{ jobs?: JobListItem[] }>({
    queryKey: ['files', 'list'],
  })) {
    const job = data?.jobs?.find((item) => item.task_id === jobId);
    if (job) return job.file_name;
  }
  return undefined;
}
