import {
  type FileJobDeleteReply,
  type FileJobListItem,
  type FileJobListReply,
  type FileJobView,
  FINISHED_JOB_STATES,
  isTerminalJobState,
  type JobCounts,
} from '@emailverify/contracts';
import { inBothStyles, type Presenter } from '../common/http/presenter';
import type { JobStatusView } from './files.service';

const percent = (part: number, whole: number) =>
  whole > 0 ? Math.min(100, Math.floor((part / whole) * 100)) : 100;

/** The counts every status reply has, and those the current style adds only once the job has ended. */
const runningCounts = (counts: JobCounts) => ({
  valid_emails: counts.valid,
  invalid_emails: counts.invalid,
  unknown_emails: counts.unknown,
});
const finalCounts = (counts: JobCounts) => ({
  role_emails: counts.role,
  catchall_emails: counts.catchall,
  risky_emails: counts.risky,
  disposable_emails: counts.disposable,
});

/** Upload reply; the older variant is the short `job_id` one. */
export function uploadPresenter(publicBaseUrl: string): Presenter<FileJobView> {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    current: (job) => ({
      task_id: job.jobId,
      file_name: job.fileName,
      file_size: job.fileSize,
      status: job.status,
      message: `File accepted: ${job.uniqueEmails} unique addresses queued for verification`,
      status_url: `${base}/v1/verify/file/${job.jobId}`,
      created_at: job.createdAt,
      estimated_count: job.estimatedCount,
      unique_emails: job.uniqueEmails,
      total_rows: job.totalRows,
      email_column: job.emailColumn,
    }),
    legacy: (job) => ({
      job_id: job.jobId,
      file_name: job.fileName,
      total_emails: job.uniqueEmails,
      status: job.status,
      created_at: job.createdAt,
    }),
  };
}

/**
 * Job status: while the job runs only the progress and count fields; once it has finished the
 * remaining counts, credits, completion time and (when completed) the download links.
 */
export const StatusPresenter: Presenter<JobStatusView> = {
  current: (job) => {
    const processedChunks = job.completedChunks + job.failedChunks;
    const body: Record<string, unknown> = {
      task_id: job.jobId,
      status: job.status,
      progress: percent(job.processedEmails, job.uniqueEmails),
      email_progress: percent(job.processedEmails, job.uniqueEmails),
      chunk_progress: percent(processedChunks, job.totalChunks),
      progress_source: 'emails',
      total_emails: job.uniqueEmails,
      processed_emails: job.processedEmails,
      waiting_emails: job.waitingEmails,
      ...runningCounts(job.counts),
      total_chunks: job.totalChunks,
      completed_chunks: job.completedChunks,
      failed_chunks: job.failedChunks,
      unique_emails: job.uniqueEmails,
      total_rows: job.totalRows,
      started_at: job.startedAt,
    };
    if (!isTerminalJobState(job.status)) return body;
    Object.assign(body, {
      ...finalCounts(job.counts),
      credits_used: job.creditsUsed,
      completed_at: job.completedAt,
    });
    if (FINISHED_JOB_STATES.includes(job.status)) {
      Object.assign(body, {
        download_url: job.downloadUrl,
        direct_download_url: job.directDownloadUrl,
        direct_download_expires_at: job.directDownloadExpiresAt,
      });
    }
    if (job.error) body.error = job.error;
    return body;
  },
  legacy: (job) => ({
    job_id: job.jobId,
    file_name: job.fileName,
    status: job.status,
    total_emails: job.uniqueEmails,
    ...runningCounts(job.counts),
    ...finalCounts(job.counts),
    credits_used: job.creditsUsed,
    progress_percent: percent(job.processedEmails, job.uniqueEmails),
    created_at: job.createdAt,
    completed_at: job.completedAt,
  }),
};

/**
 * One job of the list, current style: what a dashboard row shows. Counts are those so far while the job runs;
 * credits are settled when it ends (null until then).
 */
const listedJob = (job: FileJobListItem) => ({
  task_id: job.jobId,
  file_name: job.fileName,
  status: job.status,
  progress: percent(job.processedEmails, job.uniqueEmails),
  total_emails: job.uniqueEmails,
  processed_emails: job.processedEmails,
  ...runningCounts(job.counts),
  ...finalCounts(job.counts),
  credits_used: isTerminalJobState(job.status) ? job.creditsUsed : null,
  created_at: job.createdAt,
  completed_at: job.completedAt,
  files_deleted_at: job.filesDeletedAt,
});

/**
 * GET /verify/file (an extension): a page of the account's jobs, newest first. The legacy body is unwrapped, as
 * the webhook list's, and each job in it is the older status variant with `files_deleted_at`.
 */
export const JobListPresenter: Presenter<FileJobListReply> = {
  current: (page) => ({ jobs: page.jobs.map(listedJob), next_cursor: page.nextCursor }),
  legacy: (page) => ({
    jobs: page.jobs.map((job) => ({
      ...(StatusPresenter.legacy(job) as Record<string, unknown>),
      files_deleted_at: job.filesDeletedAt,
    })),
    next_cursor: page.nextCursor,
  }),
};

/**
 * DELETE /verify/file/{id} (an extension, without an older variant): the same body in both styles, the legacy
 * one unwrapped, as for deleting a webhook.
 */
export const JobDeletedPresenter = inBothStyles<FileJobDeleteReply>(({ jobId, cancelled }) => ({
  message: cancelled
    ? 'Job cancelled and deleted with its files; what was verified stays charged, the rest was refunded'
    : 'Job deleted with its files',
  job_id: jobId,
}));
