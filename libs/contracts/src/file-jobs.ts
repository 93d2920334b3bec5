import type { AccountId } from './ids';
import type { JobState } from './files';
import type { KeyMode } from './subjects';
import type { PackedChunkResults } from './packed-results';
import type { VerificationResult } from './verification';

/** JetStream streams (base names; the messaging library adds the namespace), with their retention. */
export const Streams = {
  verifyChunks: { name: 'VERIFY_CHUNKS', subjects: ['verify.chunk.>'], retention: 'workqueue' },
  chunkResults: { name: 'CHUNK_RESULTS', subjects: ['files.chunk.done.>'], retention: 'workqueue' },
  events: {
    name: 'EVENTS',
    subjects: ['events.file.completed', 'events.file.failed'],
    retention: 'limits',
    maxAgeMs: 7 * 24 * 3600 * 1000,
  },
} as const;

/** Durable JetStream consumers (base names; the messaging library adds the namespace): one per stream and reader. */
export const Consumers = {
  /** Verifier replicas pull chunks to verify from VERIFY_CHUNKS. */
  verifierChunks: 'verifier-chunks',
  /** file-jobs replicas pull verified chunks from CHUNK_RESULTS. */
  fileJobsChunkResults: 'file-jobs-chunk-results',
  /** webhooks replicas pull job events from EVENTS; what a stopped webhooks service missed waits there. */
  webhooksEvents: 'webhooks-events',
} as const;

export const chunkSubject = (jobId: string): string => `verify.chunk.${jobId}`;
export const chunkDoneSubject = (jobId: string): string => `files.chunk.done.${jobId}`;
/**
 * The JetStream message id of a chunk to verify or of its results: a redelivered or republished copy is dropped
 * as a duplicate. A retry of the chunk's greylisted addresses is a message of its own (its claim names it).
 */
export const chunkMessageId = (m: { jobId: string; chunk: number; retry?: string }): string =>
  m.retry === undefined ? `${m.jobId}:${m.chunk}` : `${m.jobId}:${m.chunk}:retry:${m.retry}`;
/** Core NATS broadcast on every state or progress change of a job (long polls wake on it). */
export const jobStatusSubject = (jobId: string): string => `jobs.status.${jobId}`;
export const EventSubjects = { completed: 'events.file.completed', failed: 'events.file.failed' } as const;

/** Per-status counts of a job's unique addresses. */
export interface JobCounts {
  valid: number;
  invalid: number;
  unknown: number;
  risky: number;
  disposable: number;
  catchall: number;
  role: number;
}

export interface FileJobView {
  jobId: string;
  accountId: AccountId;
  fileName: string;
  fileSize: number;
  status: JobState;
  emailColumn: string;
  totalRows: number;
  uniqueEmails: number;
  estimatedCount: number;
  totalChunks: number;
  completedChunks: number;
  failedChunks: number;
  processedEmails: number;
  /**
   * Addresses whose mail server greylisted them, waiting inside the job for a retry (GREYLIST_RETRY_DELAYS):
   * not yet in `processedEmails` nor in the counts.
   */
  waitingEmails: number;
  counts: JobCounts;
  creditsUsed: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  error: { code: string; message: string } | null;
}

/** The longest file name an upload may have, in characters (the gateway refuses longer ones, file-jobs too). */
export const FILE_NAME_MAX_LENGTH = 500;

export interface FileJobCreateRequest {
  accountId: AccountId;
  /** Object name of the uploaded file in the `files` bucket. */
  uploadObject: string;
  /** At most FILE_NAME_MAX_LENGTH characters. */
  fileName: string;
  fileSize: number;
  emailColumn?: string;
  checkSmtp: boolean;
  preserveOriginal: boolean;
  /**
   * `enrich=true` of the upload: every deliverable address gets its Gravatar and domain-age lookups, and the
   * result file the `has_gravatar` and `domain_age` columns. Without it the job makes no such lookup.
   */
  enrich: boolean;
  /**
   * Uploaded with a sandbox key: nothing is reserved, each address is answered from the sandbox table, and the
   * job's events say `sandbox: true`.
   */
  sandbox?: boolean;
}

export interface FileJobRef {
  accountId: AccountId;
  jobId: string;
  /**
   * The mode of the key asking: a job uploaded with a key of the other mode is not found, so sandbox and live
   * jobs stay apart. Absent: either.
   */
  mode?: KeyMode;
}

/** GET /v1/verify/file/{id}/results: `partial` asks for the rows verified so far of a job still running. */
export interface FileJobResultsRequest extends FileJobRef {
  partial?: boolean;
}

/** Where a finished job's result file is, and which column holds the status (for filtered downloads). */
export interface FileJobResultsReply {
  jobId: string;
  objectName: string;
  fileName: string;
  statusColumn: number;
  /**
   * The object is a copy made for this one request (the rows verified so far of a running job): whoever streams
   * it removes it afterwards.
   */
  temporary?: boolean;
}

/** Jobs one page of GET /v1/verify/file holds by default, and at most. */
export const FILE_JOB_LIST_DEFAULT_LIMIT = 20;
export const FILE_JOB_LIST_MAX_LIMIT = 100;
/** The longest page cursor accepted (those file-jobs makes are 87 characters). */
export const FILE_JOB_CURSOR_MAX_LENGTH = 200;

/** One page of an account's jobs, newest first. */
export interface FileJobListRequest {
  accountId: AccountId;
  /** Only jobs in one of these states; every state when absent. */
  statuses?: JobState[];
  /** 1 to FILE_JOB_LIST_MAX_LIMIT. */
  limit: number;
  /** The previous page's `nextCursor`, as it was given (opaque). */
  cursor?: string;
  /** The mode of the key asking: only jobs uploaded with a key of that mode are listed. Absent: either. */
  mode?: KeyMode;
}

export interface FileJobListItem extends FileJobView {
  /** When retention deleted the job's files (its record and counts stay); null while they are kept. */
  filesDeletedAt: string | null;
}

export interface FileJobListReply {
  jobs: FileJobListItem[];
  /** Asks for the next page; null on the last one. */
  nextCursor: string | null;
}

/** A job erased with its files and rows (DELETE /v1/verify/file/{id}). */
export interface FileJobDeleteReply {
  jobId: string;
  /** The job was still running and was cancelled first: what was verified stays charged, the rest refunded. */
  cancelled: boolean;
}

export interface FileJobLocateRequest {
  jobId: string;
}

/**
 * One address of a chunk as the verifier returns it: the fields of its result that the result file and the
 * counts need, and what it cost. The reason is any string because it is read back from stored chunks.
 */
export type ChunkItemResult = Pick<
  VerificationResult,
  | 'email'
  | 'status'
  | 'score'
  | 'isDeliverable'
  | 'isDisposable'
  | 'isCatchall'
  | 'isRole'
  | 'isFree'
  | 'domain'
  | 'mxRecords'
  | 'domainSuggestion'
  | 'smtpCheck'
> & { reason: string; creditsUsed: number } & Partial<ChunkItemExtras>;

/** What an enriched job's items add (ChunkMessage.enrich): the result file's `has_gravatar` and `domain_age`. */
export type ChunkItemExtras = Pick<VerificationResult, 'hasGravatar' | 'domainAge'>;

export interface ChunkMessage {
  jobId: string;
  accountId: AccountId;
  chunk: number;
  checkSmtp: boolean;
  /** The job's `enrich`: its items carry the Gravatar and domain-age fields (ChunkItemExtras). */
  enrich?: boolean;
  /** A sandbox job's chunk: answered from the sandbox table, free, with no network and no cache. */
  sandbox?: boolean;
  /**
   * When the job was created. Cached results older than this are free; newer ones are this job's own work (for
   * example a chunk redelivered after a worker died having cached its results) and are charged as fresh.
   */
  jobCreatedAt: string;
  emails: string[];
  /**
   * Set on a retry of the chunk's greylisted addresses (only those are in `emails`): the claim that sent it.
   * Message ids carry it, so each retry is a message of its own.
   */
  retry?: string;
}

export interface ChunkResultMessage {
  jobId: string;
  chunk: number;
  /** True when the verifier gave up on the chunk: every item is unknown `verification_failed`, free. */
  failed: boolean;
  /** In the chunk's address order (packChunkItem, packResultFields), packed with their counts. */
  results: PackedChunkResults;
  /** The `retry` of the ChunkMessage answered: these are retried greylisted addresses of the chunk. */
  retry?: string;
  /** The answer to a sandbox chunk: its greylisted addresses settle at once, never wait for a retry. */
  sandbox?: boolean;
}

export interface JobStatusBroadcast {
  jobId: string;
  status: JobState;
  processedEmails: number;
}

/**
 * What a webhook event as published on the EVENTS stream carries beside its `event` and `data`. `data` is the
 * body customers receive, so its fields are snake_case like the HTTP API's; everything else between services is
 * camelCase.
 */
interface FileEventEnvelope {
  timestamp: string;
  /** Present (true) only for a sandbox job's event; receivers get it beside `event` and `timestamp`. */
  sandbox?: true;
  accountId: AccountId;
}

export interface FileCompletedEvent extends FileEventEnvelope {
  event: 'file.completed';
  data: {
    job_id: string;
    file_name: string;
    total_emails: number;
    valid_emails: number;
    invalid_emails: number;
    role_emails: number;
    catchall_emails: number;
    unknown_emails: number;
    disposable_emails: number;
    credits_used: number;
    process_time_seconds: number;
    download_url: string;
    direct_download_url: string;
    direct_download_expires_at: string;
  };
}

export interface FileFailedEvent extends FileEventEnvelope {
  event: 'file.failed';
  data: {
    job_id: string;
    file_name: string;
    status: 'failed';
    error: { code: string; message: string };
    total_emails: number;
    processed_emails: number;
    credits_used: number;
  };
}

export type FileEvent = FileCompletedEvent | FileFailedEvent;
