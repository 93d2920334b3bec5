import type {
  BilledVerificationResult,
  LegacyStatus,
  VerificationStatus,
  VerifyBulkReply,
} from '@emailverify/contracts';
import type { DisposableCheck } from '@emailverify/verification';
import type { Presenter } from '../common/http/presenter';

/** Legacy statuses narrow to four; the flags keep the detail (docs/design.md, "Two response styles"). */
export function legacyStatus(status: VerificationStatus): LegacyStatus {
  switch (status) {
    case 'valid':
    case 'role':
      return 'valid';
    case 'invalid':
    case 'disposable':
      return 'invalid';
    case 'unknown':
    case 'risky':
      return 'unknown';
    case 'catchall':
      return 'catchall';
  }
}

/** The legacy reason is null when the narrowed status is valid or catch-all. */
function legacyReason(r: BilledVerificationResult): string | null {
  const narrowed = legacyStatus(r.status);
  return narrowed === 'valid' || narrowed === 'catchall' ? null : r.reason;
}

/** The flags as the flat items of both styles name them. */
function flags(r: BilledVerificationResult) {
  return {
    is_deliverable: r.isDeliverable,
    is_disposable: r.isDisposable,
    is_catchall: r.isCatchall,
    is_role: r.isRole,
    is_free: r.isFree,
  };
}

function currentSingle(r: BilledVerificationResult) {
  return {
    email: r.email,
    status: r.status,
    score: r.score,
    ...flags(r),
    has_gravatar: r.hasGravatar,
    gravatar_url: r.gravatarUrl,
    domain: r.domain,
    domain_age: r.domainAge,
    mx_records: r.mxRecords,
    domain_reputation: {
      mx_ip: r.domainReputation.mxIp,
      is_listed: r.domainReputation.isListed,
      blacklists: r.domainReputation.blacklists,
      checked: r.domainReputation.checked,
    },
    smtp_check: r.smtpCheck,
    reason: r.reason,
    smtp_response: r.smtpResponse,
    error_message: r.errorMessage,
    domain_suggestion: r.domainSuggestion,
    response_time: r.responseTime,
    credits_used: r.creditsUsed,
  };
}

export const SinglePresenter: Presenter<BilledVerificationResult> = {
  current: currentSingle,
  legacy: (r) => ({
    email: r.email,
    status: legacyStatus(r.status),
    result: {
      deliverable: r.isDeliverable,
      valid_format: r.validFormat,
      valid_domain: r.validDomain,
      valid_mx: r.validMx,
      disposable: r.isDisposable,
      role: r.isRole,
      catchall: r.isCatchall,
      free: r.isFree,
      smtp_valid: r.smtpValid,
    },
    score: r.score,
    reason: legacyReason(r),
    credits_used: r.creditsUsed,
  }),
};

export const BulkPresenter: Presenter<VerifyBulkReply> = {
  current: (reply) => ({
    results: reply.results.map((r) => ({
      email: r.email,
      status: r.status,
      score: r.score,
      is_deliverable: r.isDeliverable,
      credits_used: r.creditsUsed,
    })),
    total_emails: reply.results.length,
    valid_emails: reply.results.filter((r) => r.status === 'valid').length,
    invalid_emails: reply.results.filter((r) => r.status === 'invalid').length,
    credits_used: reply.creditsUsed,
    process_time: reply.processTimeMs,
  }),
  legacy: (reply) => {
    const statuses = reply.results.map((r) => legacyStatus(r.status));
    return {
      results: reply.results.map((r, i) => ({
        email: r.email,
        status: statuses[i],
        score: r.score,
        ...flags(r),
        domain: r.domain,
        check_smtp: r.smtpCheck,
        reason: legacyReason(r),
        credits_used: r.creditsUsed,
      })),
      total_emails: reply.results.length,
      valid_emails: statuses.filter((s) => s === 'valid').length,
      invalid_emails: statuses.filter((s) => s === 'invalid').length,
      credits_used: reply.creditsUsed,
      process_time: reply.processTimeMs,
    };
  },
};

type DisposableView = DisposableCheck & { checkedAt: string };
const disposableBody = (d: DisposableView) => ({
  email: d.email,
  domain: d.domain,
  is_disposable: d.isDisposable,
  checked_at: d.checkedAt,
});

/** No older variant of this reply exists: both styles carry the same fields (legacy without the envelope). */
export const DisposablePresenter: Presenter<DisposableView> = {
  current: disposableBody,
  legacy: disposableBody,
};
