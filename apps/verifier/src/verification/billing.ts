import type { DomainReport, VerificationResult } from '@emailverify/contracts';

/**
 * What a freshly verified result costs: one credit, except `unknown` (free and retryable,
 * including the SMTP capacity fallback) and addresses that failed syntax.
 */
export function creditsFor(result: VerificationResult): number {
  if (result.status === 'unknown') return 0;
  if (result.reason === 'invalid_syntax' || result.reason === 'missing_email') return 0;
  return 1;
}

/** Whether a result may be served from the cache later; unknown results are always verified again. */
export function cacheable(result: VerificationResult): boolean {
  return (
    result.status !== 'unknown' && result.reason !== 'invalid_syntax' && result.reason !== 'missing_email'
  );
}

/**
 * What a fresh domain report costs: one credit, except when its verdict is unknown (free, retryable, never
 * cached): the DNS did not answer, or an SMTP probe was asked for and could not tell whether the domain is
 * catch-all.
 */
export function domainCreditsFor(report: DomainReport, checkSmtp: boolean): number {
  if (report.reason === 'dns_error') return 0;
  if (checkSmtp && report.acceptsMail && report.isCatchall === null) return 0;
  return 1;
}
