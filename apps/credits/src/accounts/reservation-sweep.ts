import { periodicTask } from '@emailverify/service-kit';
import { CREDITS_CONFIG, type CreditsConfig } from '../config';
import { CreditsService } from './credits.service';
import { UsageService } from './usage.service';

/**
 * Refunds the reservations whose holder died before settling them, every RESERVATION_SWEEP_INTERVAL_MS, and
 * forgets the usage-record keys old enough that no retry of theirs can still come.
 */
export const ReservationSweep = periodicTask(
  'reservation sweep',
  [CreditsService, UsageService, CREDITS_CONFIG],
  (credits: CreditsService, usage: UsageService, config: Readonly<CreditsConfig>) => ({
    intervalMs: config.RESERVATION_SWEEP_INTERVAL_MS,
    run: async () => {
      const refunded = await credits.sweepExpired();
      await usage.pruneRecordKeys();
      return refunded;
    },
    done: { message: 'refunded expired reservations', count: 'refunded' },
  }),
);
