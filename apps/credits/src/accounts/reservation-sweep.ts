import { periodicTask } from '@emailverify/service-kit';
import { CREDITS_CONFIG, type CreditsConfig } from '../config';
import { CreditsService } from './credits.service';

/** Refunds the reservations whose holder died before settling them, every RESERVATION_SWEEP_INTERVAL_MS. */
export const ReservationSweep = periodicTask(
  'reservation sweep',
  [CreditsService, CREDITS_CONFIG],
  (credits: CreditsService, config: Readonly<CreditsConfig>) => ({
    intervalMs: config.RESERVATION_SWEEP_INTERVAL_MS,
    run: () => credits.sweepExpired(),
    done: { message: 'refunded expired reservations', count: 'refunded' },
  }),
);
