import { type ErrorCode, JOB_STATES } from '@emailverify/contracts';
import { type RouteDocs, sameInBothStyles, type StyledBody } from '../openapi/api-route';
import { each, int, named, nullable, object, str, time } from '../openapi/schema';
import { ENRICH_DESCRIPTION, PARTIAL_DESCRIPTION } from './dto/files.dto';

const jobStatus = named(
  'JobState',
  { type: 'string', enum: [...JOB_STATES] },
  'Where a file job is in its life',
);
const JOB_ID = '8f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90';
const CREATED_AT = '2026-11-22T10:00:00.000Z';
const COMPLETED_AT = '2026-11-22T10:02:13.000Z';

const uploadDocs: StyledBody = {
  name: 'FileJob',
  current: object({
    task_id: str,
    file_name: str,
    file_size: int,
    status: jobStatus,
    message: str,
    status_url: str,
    created_at: time,
    estimated_count: int,
    unique_emails: int,
    total_rows: int,
    email_column: str,
  }),
  legacy: object({ job_id: str, file_name: str, total_emails: int, status: jobStatus, created_at: time }),
  currentExample: {
    task_id: JOB_ID,
    file_name: 'leads.csv',
    file_size: 182044,
    status: 'pending',
    message: 'File accepted: 4980 unique addresses queued for verification',
    status_url: `https://api.example.com/v1/verify/file/${JOB_ID}`,
    created_at: CREATED_AT,
    estimated_count: 5000,
    unique_emails: 4980,
    total_rows: 5002,
    email_column: 'Email',
  },
  legacyExample: {
    job_id: JOB_ID,
    file_name: 'leads.csv',
    total_emails: 4980,
    status: 'pending',
    created_at: CREATED_AT,
  },
};

/** Counts every status reply has, and those the current style adds once the job has ended. */
const RUNNING_COUNTS = ['total_emails', 'valid_emails', 'invalid_emails', 'unknown_emails'];
const FINAL_COUNTS = ['role_emails', 'catchall_emails', 'risky_emails', 'disposable_emails'];
const countsExample = {
  total_emails: 4980,
  valid_emails: 4100,
  invalid_emails: 500,
  unknown_emails: 80,
  role_emails: 150,
  catchall_emails: 100,
  risky_emails: 10,
  disposable_emails: 40,
};

/** Fields of a current-style status that appear only once the job has ended (links: once it completed). */
const WHEN_ENDED = [
  ...FINAL_COUNTS,
  'credits_used',
  'completed_at',
  'download_url',
  'direct_download_url',
  'direct_download_expires_at',
  'error',
];

const percentSchema = { type: 'integer', minimum: 0, maximum: 100 };

/** A job in the legacy style: the older status variant, and each job of a legacy page (which adds files_deleted_at). */
const legacyJob = {
  job_id: str,
  file_name: str,
  status: jobStatus,
  ...each([...RUNNING_COUNTS, ...FINAL_COUNTS, 'credits_used'], int),
  progress_percent: percentSchema,
  created_at: time,
  completed_at: nullable(time),
};
const legacyJobExample = {
  job_id: JOB_ID,
  file_name: 'leads.csv',
  status: 'completed',
  ...countsExample,
  credits_used: 4900,
  progress_percent: 100,
  created_at: CREATED_AT,
  completed_at: COMPLETED_AT,
};

const statusDocs: StyledBody = {
  name: 'FileJobStatus',
  current: {
    ...object(
      {
        task_id: str,
        status: jobStatus,
        ...each(['progress', 'email_progress', 'chunk_progress'], percentSchema),
        progress_source: str,
        ...each([...RUNNING_COUNTS, 'processed_emails', ...FINAL_COUNTS, 'credits_used'], int),
        waiting_emails: {
          type: 'integer',
          minimum: 0,
          description:
            'Extension: addresses whose mail server greylisted them, waiting inside the job for a retry; they are not yet in processed_emails nor in the counts',
        },
        download_url: str,
        direct_download_url: str,
        direct_download_expires_at: time,
        started_at: nullable(time),
        completed_at: nullable(time),
        ...each(['total_chunks', 'completed_chunks', 'failed_chunks', 'unique_emails', 'total_rows'], int),
        error: { ...object({ code: str, message: str }), description: 'Why the job failed' },
      },
      WHEN_ENDED,
    ),
    description:
      'While the job runs only progress, counts and started_at; the other fields appear once it has ended, the download links once it has completed.',
  },
  legacy: object(legacyJob),
  currentExample: {
    task_id: JOB_ID,
    status: 'completed',
    progress: 100,
    email_progress: 100,
    chunk_progress: 100,
    progress_source: 'emails',
    processed_emails: 4980,
    waiting_emails: 0,
    ...countsExample,
    credits_used: 4900,
    download_url: `https://api.example.com/v1/verify/file/${JOB_ID}/results`,
    direct_download_url: `https://api.example.com/v1/verify/file/${JOB_ID}/download?expires=1795370400&signature=…`,
    direct_download_expires_at: '2026-11-22T11:00:00.000Z',
    started_at: '2026-11-22T10:00:01.000Z',
    completed_at: COMPLETED_AT,
    total_chunks: 10,
    completed_chunks: 10,
    failed_chunks: 0,
    unique_emails: 4980,
    total_rows: 5002,
  },
  legacyExample: legacyJobExample,
};

const nextCursor = nullable(str, 'Pass as `cursor` for the next page; null on the last page');
const filesDeletedAt = nullable(
  time,
  'When retention deleted the files (uploads and results are kept FILE_RETENTION_DAYS after the job ends); null while kept',
);

/** GET /verify/file (an extension): a page of jobs, newest first; the legacy body is unwrapped, each job the older status variant. */
const listDocs: StyledBody = {
  name: 'FileJobList',
  legacyName: 'FileJobListLegacy',
  current: object({
    jobs: {
      type: 'array',
      items: object({
        task_id: str,
        file_name: str,
        status: jobStatus,
        progress: percentSchema,
        ...each([...RUNNING_COUNTS, 'processed_emails', ...FINAL_COUNTS], int),
        credits_used: nullable(int, 'Settled when the job ends; null until then'),
        created_at: time,
        completed_at: nullable(time),
        files_deleted_at: filesDeletedAt,
      }),
    },
    next_cursor: nextCursor,
  }),
  legacy: object({
    jobs: { type: 'array', items: object({ ...legacyJob, files_deleted_at: filesDeletedAt }) },
    next_cursor: nextCursor,
  }),
  currentExample: {
    jobs: [
      {
        task_id: JOB_ID,
        file_name: 'leads.csv',
        status: 'completed',
        progress: 100,
        processed_emails: 4980,
        ...countsExample,
        credits_used: 4900,
        created_at: CREATED_AT,
        completed_at: COMPLETED_AT,
        files_deleted_at: null,
      },
    ],
    next_cursor: 'MjAyNi0xMS0yMlQxMDowMDowMC4wMDAwMDBaIDhmMGM1YTFlLTJkMzQtNGI4ZS05YTBlLTVjMWY2ZDdiMmE5MA',
  },
  legacyExample: {
    jobs: [{ ...legacyJobExample, files_deleted_at: null }],
    next_cursor: null,
  },
};

/** DELETE /verify/file/{id} (an extension, with no older variant): the legacy style is the same body unwrapped. */
const deletedDocs = sameInBothStyles(
  object({ message: str, job_id: str }),
  {
    message: 'Job deleted with its files',
    job_id: JOB_ID,
  },
  'FileJobDeleted',
);

/** Files are personal data: what the download routes say once retention has deleted them. */
const RETENTION =
  'Files are kept FILE_RETENTION_DAYS (30 by default) after the job ends; afterwards 404 JOB_NOT_FOUND says they were deleted.';

/** What a route naming a job can fail with, besides a key or rate-limit refusal. */
const JOB_ERRORS: ErrorCode[] = ['JOB_NOT_FOUND', 'SERVICE_UNAVAILABLE'];

/** What the document says about each route. */
export const FileRoutes = {
  list: {
    operationId: 'listFileJobs',
    summary: "The account's file jobs, newest first, a page at a time (extension)",
    description:
      'Pages by an opaque cursor: pass next_cursor back as cursor until it is null. Every job is listed once, ' +
      'whatever is created meanwhile (newer jobs are on earlier pages). A deleted job is absent; a job whose ' +
      'files retention deleted stays, with files_deleted_at. A malformed cursor, a limit outside 1-100 or an ' +
      'unknown status is 400 INVALID_REQUEST naming the parameter.',
    ok: listDocs,
    errors: ['SERVICE_UNAVAILABLE'],
  },
  upload: {
    operationId: 'uploadFile',
    summary: 'Upload a CSV, XLSX or TXT file of addresses; creates a job (status pending)',
    description:
      'When the file store has no room for the upload (FILE_STORE_MAX_BYTES), 503 SERVICE_UNAVAILABLE: nothing is stored or charged.',
    ok: uploadDocs,
    errors: ['INSUFFICIENT_CREDITS', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
    form: named(
      'FileUploadRequest',
      object(
        {
          file: {
            type: 'string',
            format: 'binary',
            description: '.csv, .xlsx (first sheet) or .txt (one address per line)',
          },
          email_column: {
            type: 'string',
            description: 'Column holding the addresses; auto-detected when omitted',
          },
          check_smtp: {
            type: 'boolean',
            default: false,
            description: 'Live SMTP verification of every address',
          },
          preserve_original: {
            type: 'boolean',
            default: true,
            description: 'Keep the original columns in the result file',
          },
          enrich: { type: 'boolean', default: false, description: ENRICH_DESCRIPTION },
        },
        ['email_column', 'check_smtp', 'preserve_original', 'enrich'],
      ),
      'A file of addresses and how to verify them',
    ),
  },
  status: {
    operationId: 'getFileJob',
    summary: 'Job status; `timeout` (0-300 s) waits until the job finishes or the time is up',
    ok: statusDocs,
    errors: JOB_ERRORS,
  },
  results: {
    operationId: 'downloadResults',
    summary: 'Download results',
    description:
      'Without filters: 307 to the signed full result file (legacy style: the file itself, 200). With filters (OR): a CSV of the matching rows only. ' +
      `partial=true: ${PARTIAL_DESCRIPTION} ` +
      RETENTION,
    replies: [
      { status: 200, description: 'CSV of the (matching) rows', csv: true },
      {
        status: 307,
        description: 'Redirect to the signed full result file (no filter)',
        redirect: true,
        style: 'current',
      },
    ],
    errors: JOB_ERRORS,
  },
  download: {
    operationId: 'downloadSignedResults',
    summary: 'The full result file through a signed link (no API key; refused when changed or expired)',
    description: RETENTION,
    replies: [{ status: 200, description: 'The result CSV', csv: true }],
    errors: ['INVALID_REQUEST', 'DOWNLOAD_LINK_INVALID', 'JOB_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  },
  remove: {
    operationId: 'deleteFileJob',
    summary: 'Delete a job with its uploaded file, result file and rows, at once (extension)',
    description:
      'A job that is still running is cancelled first (what was verified stays charged, the rest is refunded); ' +
      "a finished job's charges stand. Afterwards the job is gone: its status, downloads and a second DELETE " +
      'answer 404 JOB_NOT_FOUND.',
    ok: deletedDocs,
    errors: JOB_ERRORS,
  },
  /** Pause, resume and cancel: the job's status in reply; being POSTs, a body (if any) is read as JSON. */
  action: (operationId: string, summary: string): RouteDocs => ({
    operationId,
    summary,
    ok: statusDocs,
    errors: [...JOB_ERRORS, 'PAYLOAD_TOO_LARGE'],
  }),
} satisfies Record<string, RouteDocs | ((operationId: string, summary: string) => RouteDocs)>;
