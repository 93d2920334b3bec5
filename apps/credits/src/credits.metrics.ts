import type { Metrics } from '@emailverify/service-kit';
import type { Counter } from 'prom-client';

/** What a reservation's idempotency key says it was for; anything else is `other`. */
const SOURCES = ['single', 'bulk', 'file'] as const;

/** The credits service's own metrics, declared in one place. */
export class CreditsMetrics {
  readonly consumed: Counter<'source'>;

  constructor(metrics: Metrics) {
    this.consumed = metrics.counter(
      'credits_consumed_total',
      'Credits charged when reservations were settled, by what they paid for (single, bulk, file)',
      ['source'],
    );
  }

  /** Counts `used` credits of a settled reservation, by the source its key names (`file:<jobId>`, ...). */
  settled(idempotencyKey: string, used: number): void {
    if (used <= 0) return;
    const prefix = idempotencyKey.slice(0, idempotencyKey.indexOf(':'));
    const source = (SOURCES as readonly string[]).includes(prefix) ? prefix : 'other';
    this.consumed.inc({ source }, used);
  }
}
