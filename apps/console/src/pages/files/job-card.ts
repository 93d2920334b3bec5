// What a job card shows and offers, from a status reply or a listing row: its state in words, its progress, and
// which of pause, resume, cancel, delete and the downloads make sense now. Pure, so it is unit-tested.
import type { Schemas } from '@emailverify/client';
import type { VerificationStatus } from '@emailverify/contracts';
import { jobStateLook, type JobStateLook } from '../../format/job-state';
import { formatCount } from '../../format/numbers';
import { STATUS_ORDER } from '../../format/status';

/** The fields a listing row and a status reply share (each has more). */
export interface JobLike {
  status: Schemas['JobState'] | string;
  progress: number;
  total_emails: number;
  processed_emails: number;
  waiting_emails?: number;
  files_deleted_at?: string | null;
}

export interface JobCard {
  look: JobStateLook;
  /** 0 to 100, whole: 100 only once the job has ended as completed. */
  percent: number;
  /** "120 of 200 addresses verified (60%)". */
  progressText: string;
  /** Still moving (neither ended nor paused): worth watching for changes. */
  active: boolean;
  canPause: boolean;
  canResume: boolean;
  canCancel: boolean;
  /** Every job can be deleted (a running one is cancelled first by the service). */
  canDelete: true;
  /** The whole result file (and its filtered downloads) can be fetched. */
  canDownload: boolean;
  /** The rows verified so far can be fetched. */
  canDownloadPartial: boolean;
  /** Retention deleted the job's files: its numbers stay, its downloads are gone. */
  filesDeleted: boolean;
}

const PAUSABLE = new Set(['pending', 'running', 'processing']);
const UNDER_WAY = new Set(['pending', 'running', 'processing', 'merging', 'paused']);
const FINISHED = new Set(['completed', 'completed_with_warning']);

/**
 * A progress figure as a whole percentage for a bar: never above 100 and never 100 while the job is not
 * finished (99.6 stays 99 until the results are written), never below 0 or NaN.
 */
export function progressPercent(progress: number, finished: boolean): number {
  if (finished) return 100;
  if (!Number.isFinite(progress)) return 0;
  return Math.min(99, Math.max(0, Math.floor(progress)));
}

/** "120 of 200 addresses verified (60%)", with greylisted addresses still waiting told apart. */
export function formatProgress(processed: number, total: number, percent: number, waiting = 0): string {
  const noun = total === 1 ? 'address' : 'addresses';
  const base = `${formatCount(processed)} of ${formatCount(total)} ${noun} verified (${percent}%)`;
  return waiting > 0 ? `${base}; ${formatCount(waiting)} waiting for a mail server to answer again` : base;
}

export function jobCard(job: JobLike): JobCard {
  const look = jobStateLook(job.status);
  const finished = FINISHED.has(job.status);
  const ended = look.ended;
  const percent = progressPercent(job.progress, finished);
  const filesDeleted = Boolean(job.files_deleted_at);
  return {
    look,
    percent,
    progressText: formatProgress(job.processed_emails, job.total_emails, percent, job.waiting_emails ?? 0),
    active: !ended && job.status !== 'paused',
    canPause: PAUSABLE.has(job.status),
    canResume: job.status === 'paused',
    canCancel: !ended,
    canDelete: true,
    canDownload: finished && !filesDeleted,
    canDownloadPartial: UNDER_WAY.has(job.status),
    filesDeleted,
  };
}

/** A size in bytes as people read it: "512 bytes", "1.5 KiB", "12.3 MiB". */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${value} ${value === 1 ? 'byte' : 'bytes'}`;
  return `${(Math.round(value * 10) / 10).toLocaleString('en')} ${units[unit]}`;
}

/** An upload's progress as a whole percentage, from XMLHttpRequest's progress event. */
export function uploadPercent(loaded: number, total: number): number {
  if (!(total > 0)) return 0;
  return Math.min(100, Math.max(0, Math.floor((loaded / total) * 100)));
}

/** The per-verdict counts of a status reply or listing row (absent counts read as 0). */
export interface VerdictCounts {
  valid_emails: number;
  invalid_emails: number;
  unknown_emails: number;
  catchall_emails?: number;
  role_emails?: number;
  disposable_emails?: number;
  risky_emails?: number;
}

export interface VerdictRow {
  status: VerificationStatus;
  count: number;
  /** Share of the addresses verified so far, as "42%" ("0%" when none yet). */
  share: string;
}

/** The seven verdicts in the console's order, with each one's count and share of those counted. */
export function verdictRows(job: VerdictCounts): VerdictRow[] {
  const count: Record<VerificationStatus, number> = {
    valid: job.valid_emails,
    invalid: job.invalid_emails,
    unknown: job.unknown_emails,
    catchall: job.catchall_emails ?? 0,
    role: job.role_emails ?? 0,
    disposable: job.disposable_emails ?? 0,
    risky: job.risky_emails ?? 0,
  };
  const total = STATUS_ORDER.reduce((sum, status) => sum + count[status], 0);
  return STATUS_ORDER.map((status) => ({
    status,
    count: count[status],
    share: total > 0 ? `${Math.round((count[status] / total) * 100)}%` : '0%',
  }));
}

/**
 * How long the job list waits before asking again while a job is under way. The listing has no long-poll
 * (the status endpoint's `timeout` wakes only when a job ends, not when it moves), so the list polls: every 2 s
 * while the numbers move, backing off by half again for each unchanged reply to at most 15 s; none runs, no
 * poll at all (the caller stops).
 */
export function pollDelay(unchangedReplies: number): number {
  return Math.min(15_000, Math.round(2_000 * 1.5 ** Math.max(0, unchangedReplies)));
}

/** The wait a refusal asked for (429's or 503's Retry-After), in milliseconds; 0 when none. */
export function retryAfterMs(error: unknown): number {
  const seconds = (error as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}
