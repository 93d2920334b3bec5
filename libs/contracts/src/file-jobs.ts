import type { JobState } from './files';
import type { VerificationStatus } from './verification';

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

export const chunkSubject = (jobId: string): string => `verify.chunk.${jobId}`;
export const chunkDoneSubject = (jobId: string): string => `files.chunk.done.${jobId}`;
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
  accountId: string;
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
  counts: JobCounts;
  creditsUsed: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  error: { code: string; message: string } | null;
}

export interface FileJobCreateRequest {
  accountId: string;
  /** Object name of the uploaded file in the `files` bucket. */
  uploadObject: string;
  fileName: string;
  fileSize: number;
  emailColumn?: string;
  checkSmtp: boolean;
  preserveOriginal: boolean;
}

export interface FileJobRef {
  accountId: string;
  jobId: string;
}

/** Where a finished job's result file is, and which column holds the status (for filtered downloads). */
export interface FileJobResultsReply {
  jobId: string;
  objectName: string;
  fileName: string;
  statusColumn: number;
}

export interface FileJobLocateRequest {
  jobId: string;
}

/** One address of a chunk as the verifier returns it: what the result file and the counts need. */
export interface ChunkItemResult {
  email: string;
  status: VerificationStatus;
  reason: string;
  score: number;
  isDeliverable: boolean;
  isDisposable: boolean;
  isCatchall: boolean;
  isRole: boolean;
  isFree: boolean;
  domain: string;
  mxRecords: string[];
  domainSuggestion: string;
  smtpCheck: boolean;
  creditsUsed: number;
}

export interface ChunkMessage {
  jobId: string;
  accountId: string;
  chunk: number;
  checkSmtp: boolean;
  /**
   * When the job was created. Cached results older than this are free; newer ones are this job's own work (for
   * example a chunk redelivered after a worker died having cached its results) and are charged as fresh.
   */
  jobCreatedAt: string;
  emails: string[];
}

/**
 * A chunk item as it travels and is stored: the fields of ChunkItemResult in a fixed order, the six booleans
 * as bits of one number. A million-address job moves (verifier, JetStream, file-jobs) and stores a million of
 * these; without the field names each is about a third of the size.
 */
export type PackedChunkItem = [
  email: string,
  status: VerificationStatus,
  reason: string,
  score: number,
  flags: number,
  domain: string,
  mxRecords: string[],
  domainSuggestion: string,
  creditsUsed: number,
];

// Bits of the flags number, written out for speed (a million items per large job go through these).
const DELIVERABLE = 1;
const DISPOSABLE = 2;
const CATCHALL = 4;
const ROLE = 8;
const FREE = 16;
const SMTP_CHECK = 32;

export function packChunkItem(r: ChunkItemResult): PackedChunkItem {
  return packResultFields(r, r.creditsUsed, r.email);
}

/**
 * Packs the result-file fields of any result (a verification's among them) with what it cost and the key it
 * answers, without building a ChunkItemResult first.
 */
export function packResultFields(
  r: Omit<ChunkItemResult, 'email' | 'creditsUsed'>,
  creditsUsed: number,
  email: string,
): PackedChunkItem {
  const flags =
    (r.isDeliverable ? DELIVERABLE : 0) |
    (r.isDisposable ? DISPOSABLE : 0) |
    (r.isCatchall ? CATCHALL : 0) |
    (r.isRole ? ROLE : 0) |
    (r.isFree ? FREE : 0) |
    (r.smtpCheck ? SMTP_CHECK : 0);
  return [email, r.status, r.reason, r.score, flags, r.domain, r.mxRecords, r.domainSuggestion, creditsUsed];
}

/** Reads a packed item, or an item in the earlier object form (results stored or sent before packing). */
export function unpackChunkItem(item: PackedChunkItem | ChunkItemResult): ChunkItemResult {
  if (!Array.isArray(item)) return item;
  const [email, status, reason, score, flags, domain, mxRecords, domainSuggestion, creditsUsed] = item;
  return {
    email,
    status,
    reason,
    score,
    isDeliverable: (flags & DELIVERABLE) !== 0,
    isDisposable: (flags & DISPOSABLE) !== 0,
    isCatchall: (flags & CATCHALL) !== 0,
    isRole: (flags & ROLE) !== 0,
    isFree: (flags & FREE) !== 0,
    domain,
    mxRecords,
    domainSuggestion,
    smtpCheck: (flags & SMTP_CHECK) !== 0,
    creditsUsed,
  } satisfies Required<ChunkItemResult>;
}

export interface ChunkResultMessage {
  jobId: string;
  chunk: number;
  /** True when the verifier gave up on the chunk: every item is unknown `verification_failed`, free. */
  failed: boolean;
  /** In the chunk's address order. Packed (PackedChunkItem); the object form is still read. */
  results: Array<PackedChunkItem | ChunkItemResult>;
}

export interface JobStatusBroadcast {
  jobId: string;
  status: JobState;
  processedEmails: number;
}

/** Body of a webhook event, as published on the EVENTS stream. */
export interface FileCompletedEvent {
  event: 'file.completed';
  timestamp: string;
  accountId: string;
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

export interface FileFailedEvent {
  event: 'file.failed';
  timestamp: string;
  accountId: string;
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
