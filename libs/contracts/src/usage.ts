import type { AccountId } from './ids';
import type { KeyMode } from './subjects';
import type { VerificationStatus } from './verification';

// ---- the ledger and usage of an account (credits service) ----------------------------------------------

/** Page size of GET /v1/credits/ledger. */
export const LEDGER_PAGE = { min: 1, max: 100, default: 20 } as const;
/** The longest range, in days, /v1/credits/ledger and /v1/credits/usage answer for at once. */
export const USAGE_RANGE_MAX_DAYS = 366;
/** The range /v1/credits/usage covers when none is asked for: the last 30 days, today included. */
export const USAGE_DEFAULT_DAYS = 30;

/** A ledger row as customers see it: `charge` is a reservation (credits taken before the work). */
export type LedgerEntryKind = 'grant' | 'charge' | 'refund';
/** What a charge or refund paid for, from its reservation's idempotency key; null for a grant. */
export type LedgerSource = 'single' | 'bulk' | 'domain' | 'file' | 'other';

export interface LedgerListRequest {
  accountId: AccountId;
  /** LEDGER_PAGE.min..max. */
  limit: number;
  /** The previous page's nextCursor. */
  cursor?: string;
  /** ISO timestamp: entries at or after it. */
  from?: string;
  /** ISO timestamp: entries before it. */
  to?: string;
}
export interface LedgerEntry {
  id: string;
  kind: LedgerEntryKind;
  /** Signed: a charge is negative, a grant or refund positive. */
  amount: number;
  balanceAfter: number;
  createdAt: string;
  source: LedgerSource | null;
  /** The request (X-Request-Id) a single, bulk or domain verification's charge or refund was for. */
  requestId: string | null;
  /** The file job a charge or refund was for. */
  jobId: string | null;
}
export interface LedgerListReply {
  /** Newest first. */
  entries: LedgerEntry[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
}

export interface UsageGetRequest {
  accountId: AccountId;
  /** First day (YYYY-MM-DD, UTC), included. */
  from: string;
  /** Last day (YYYY-MM-DD, UTC), included; at most USAGE_RANGE_MAX_DAYS after `from`. */
  to: string;
}
export interface UsageCounts {
  /** Credits granted. */
  creditsAdded: number;
  /** Credits charged less credits refunded, from the ledger: added minus used over all days is the balance. */
  creditsUsed: number;
  /** Addresses verified with live keys, by status. */
  verifications: Record<VerificationStatus, number>;
  /** Addresses verified with sandbox keys, by status (never charged). */
  sandboxVerifications: Record<VerificationStatus, number>;
}
export interface UsageDay extends UsageCounts {
  date: string;
}
export interface UsageReply {
  from: string;
  to: string;
  granularity: 'day';
  /** Every day of the range, oldest first, days without activity at zero. */
  days: UsageDay[];
  totals: UsageCounts;
}

/** Entries one usage record carries at most. */
export const USAGE_RECORD_MAX = 1_000;
/**
 * Verifications to count in an account's daily usage (credits.usage.record), sent by whoever knows results: the
 * verifier for single and bulk requests, file-jobs for a finished job, for live and sandbox keys alike. Counted
 * on the credits service's day (UTC) when it arrives.
 */
export interface UsageRecordRequest {
  /**
   * Names this record: one repeated with a key already counted changes nothing (a retried message). Keys are
   * remembered for a day; e.g. `file:<jobId>`, or `usage:<uuid>` for a batch of requests.
   */
  key: string;
  /** At most USAGE_RECORD_MAX; counts of the same account, mode and status are added up. */
  entries: UsageRecordEntry[];
}
export interface UsageRecordEntry {
  accountId: AccountId;
  mode: KeyMode;
  status: VerificationStatus;
  count: number;
}
export interface UsageRecordReply {
  /** False when the key had been counted already. */
  recorded: boolean;
}
