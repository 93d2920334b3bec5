import type { VerificationResult } from '@emailverify/contracts';

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
