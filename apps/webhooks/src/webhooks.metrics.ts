import { Metrics } from '@emailverify/service-kit';
import type { BreakerChange } from './delivery/breaker';
import type { DispatcherMetrics } from './delivery/dispatcher';

const BREAKER_CHANGES: readonly Exclude<BreakerChange, 'none'>[] = ['opened', 'reopened', 'closed'];

/** The webhooks service's own metrics, declared in one place. */
export function webhooksMetrics(metrics: Metrics): DispatcherMetrics {
  const breakerChanges = metrics.counter(
    'webhook_breaker_changes_total',
    'Circuit breakers of webhooks opened, opened again after a failed probe, or closed',
    ['change'],
    { change: BREAKER_CHANGES },
  );
  return {
    attempts: metrics.counter(
      'webhook_attempts_total',
      'Webhook delivery attempts by outcome (success, retry, failed, gone, inactive)',
      ['outcome'],
    ),
    attemptSeconds: metrics.histogram(
      'webhook_attempt_seconds',
      'Duration of webhook delivery attempts, from sending to the reply, by outcome',
      ['outcome'],
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    ),
    breakerChanges,
  };
}
