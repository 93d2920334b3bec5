import { Injectable } from '@nestjs/common';
import { AppMetrics } from '@emailverify/service-kit';
import { RATE_CLASSES } from './common/rate-limit/rate-classes';

/** What became of a request with an Idempotency-Key (the `outcome` label of idempotency_requests_total). */
const IDEMPOTENCY_OUTCOMES = ['first', 'replayed', 'reused', 'in_use', 'limit', 'store_failed'] as const;
export type IdempotencyOutcome = (typeof IDEMPOTENCY_OUTCOMES)[number];

/** The gateway's limiters: one per rate class, failed authentication per address, and signed-link downloads. */
const LIMITERS = [...RATE_CLASSES, 'auth-failures', 'download'] as const;
export type LimiterName = (typeof LIMITERS)[number];

/** The gateway's own metrics, declared in one place (the request histogram is service-kit's). */
@Injectable()
export class GatewayMetrics extends AppMetrics {
  private readonly idempotencyRequests = this.metrics.counter(
    'idempotency_requests_total',
    'Requests with an Idempotency-Key, by what became of them',
    ['outcome'],
    { outcome: IDEMPOTENCY_OUTCOMES },
  );
  private readonly rateLimitStoreFailures = this.metrics.counter(
    'rate_limit_store_failures_total',
    'Requests let through because the rate-limit store failed',
    ['limiter'],
    { limiter: LIMITERS },
  );

  /** Counts a request with an Idempotency-Key by what became of it. */
  idempotencyRequest(outcome: IdempotencyOutcome): void {
    this.idempotencyRequests.inc({ outcome });
  }

  /** Counts a request let through because `limiter`'s store failed. */
  rateLimitStoreFailed(limiter: LimiterName): void {
    this.rateLimitStoreFailures.inc({ limiter });
  }
}
