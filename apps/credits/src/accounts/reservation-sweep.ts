import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, PeriodicTask } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { CREDITS_CONFIG, type CreditsConfig } from '../config';
import { CreditsService } from './credits.service';
import { UsageService } from './usage.service';

/**
 * Refunds the reservations whose holder died before settling them, every RESERVATION_SWEEP_INTERVAL_MS, and
 * forgets the usage-record keys old enough that no retry of theirs can still come.
 */
@Injectable()
export class ReservationSweep extends PeriodicTask {
  constructor(
    credits: CreditsService,
    usage: UsageService,
    @Inject(CREDITS_CONFIG) config: Readonly<CreditsConfig>,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(
      'reservation sweep',
      config.RESERVATION_SWEEP_INTERVAL_MS,
      async () => {
        const refunded = await credits.sweepExpired();
        if (refunded > 0) logger.info({ refunded }, 'refunded expired reservations');
        await usage.pruneRecordKeys();
      },
      logger,
    );
  }
}
