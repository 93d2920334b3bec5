import { DomainError } from './errors';

/** Statuses of a verified address. */
export const VERIFICATION_STATUSES = [
  'valid',
  'invalid',
  'unknown',
  'risky',
  'disposable',
  'catchall',
  'role',
] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** Statuses of the older response style: single and bulk items narrow to these. */
export const LEGACY_STATUSES = ['valid', 'invalid', 'unknown', 'catchall'] as const;
export type LegacyStatus = (typeof LEGACY_STATUSES)[number];

/** Highest first: when several findings apply, the first in this list decides the status. */
export const STATUS_PRECEDENCE: readonly VerificationStatus[] = [
  'invalid',
  'disposable',
  'risky',
  'unknown',
  'catchall',
  'role',
  'valid',
];

/** Reason vocabulary, snake_case on the wire. */
export const REASONS = [
  'accepted',
  'mx_found',
  'catch_all',
  'role_account',
  'disposable_domain',
  'domain_listed',
  'invalid_syntax',
  'missing_email',
  'domain_not_found',
  'null_mx',
  'no_mx_records',
  'mailbox_not_found',
  'mailbox_full',
  'greylisted',
  'smtp_unreachable',
  'smtp_timeout',
  'smtp_blocked',
  'dns_error',
  'mx_only_verification_semaphore_timeout',
  'verification_failed',
] as const;
export type Reason = (typeof REASONS)[number];

export interface DomainReputation {
  /** First MX host's IPv4 address, empty when none was resolved. */
  mxIp: string;
  isListed: boolean;
  /** Zones that listed the domain or the MX address. */
  blacklists: string[];
  checked: boolean;
}

/** The verification engine's result for one address; presenters render it in either response style. */
export interface VerificationResult {
  email: string;
  status: VerificationStatus;
  reason: Reason;
  score: number;
  isDeliverable: boolean;
  isDisposable: boolean;
  isCatchall: boolean;
  isRole: boolean;
  isFree: boolean;
  hasGravatar: boolean;
  gravatarUrl: string;
  domain: string;
  domainAge: number;
  mxRecords: string[];
  domainReputation: DomainReputation;
  /** Whether a live SMTP conversation took place. */
  smtpCheck: boolean;
  smtpResponse: string;
  errorMessage: string;
  domainSuggestion: string;
  /** Milliseconds spent verifying. */
  responseTime: number;
  validFormat: boolean;
  validDomain: boolean;
  validMx: boolean;
  smtpValid: boolean;
}

/** A verification result as returned to a caller, with what it cost. */
export interface BilledVerificationResult extends VerificationResult {
  creditsUsed: number;
  cached: boolean;
}

/**
 * The BULK_MAX_EMAILS setting, read by the gateway and by the verifier (each checks a bulk's size): its default
 * and the values it may take.
 */
export const BULK_MAX_EMAILS = { default: 100, min: 1, max: 10_000 } as const;

/**
 * A bulk verification holds 1 to `max` addresses (BULK_MAX_EMAILS); otherwise INVALID_REQUEST naming the field
 * and the limit. The gateway checks it before the hop, the verifier again on receipt.
 */
export function assertBulkSize(count: number, max: number): void {
  if (count === 0 || count > max) {
    throw new DomainError(
      'INVALID_REQUEST',
      `emails must hold between 1 and ${max} addresses (got ${count})`,
      {
        field: 'emails',
        max,
      },
    );
  }
}
