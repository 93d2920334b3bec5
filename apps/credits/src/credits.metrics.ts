import { Injectable } from '@nestjs/common';
import { AppMetrics } from '@emailverify/service-kit';

/** What a reservation's idempotency key says it was for; anything else is `other`. */
const SOURCES = ['single', 'bulk', 'file'] as const;

/**
 * The credits service's own metrics, declared in one place. They move when balances move, as an account's
 * `consumed` does: credits are consumed when a reservation takes them and refunded when its settlement or expiry
 * gives the unused part back, so consumed minus refunded is what the accounts' `credits_consumed` grew by.
 */
@Injectable()
export class CreditsMetrics extends AppMetrics {
  readonly consumed = this.metrics.counter(
    'credits_consumed_total',
    'Credits taken from balances by reservations, by what they paid for (single, bulk, file); ' +
      'what was given back is in credits_refunded_total',
    ['source'],
    { source: [...SOURCES, 'other'] },
  );
  readonly refunded = this.metrics.counter(
    'credits_refunded_total',
    'Credits given back to balances when reservations were settled or expired, by what they were for',
    ['source'],
    { source: [...SOURCES, 'other'] },
  );

  /** Counts the `amount` a new reservation took, by the source its key names (`file:<jobId>`, ...). */
  reserved(idempotencyKey: string, amount: number): void {
    if (amount > 0) this.consumed.inc({ source: sourceOf(idempotencyKey) }, amount);
  }

  /** Counts the `amount` a settlement or an expiry gave back. */
  gaveBack(idempotencyKey: string, amount: number): void {
    if (amount > 0) this.refunded.inc({ source: sourceOf(idempotencyKey) }, amount);
  }
}

function sourceOf(idempotencyKey: string): string {
  const prefix = idempotencyKey.slice(0, idempotencyKey.indexOf(':'));
  return (SOURCES as readonly string[]).includes(prefix) ? prefix : 'other';
}
