import type { DynamicModule } from '@nestjs/common';
import { MessageBus } from '@emailverify/messaging';
import {
  LOGGER,
  PER_REQUEST_LOG_HOLD_MS,
  periodicTask,
  serviceModule,
  withDataSource,
  withMetrics,
} from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { CreditsRepository } from './accounts/credits.repository';
import { CreditsService } from './accounts/credits.service';
import type { CreditsConfig } from './config';
import { CreditsHandler } from './credits.handler';
import { CreditsMetrics } from './credits.metrics';
import { creditsMigrations } from './migrations';

/** The credits service: accounts, API keys and balances, over NATS. */
export function creditsModule(config: Readonly<CreditsConfig>): DynamicModule {
  return serviceModule('credits', config, {
    database: { schema: 'credits', migrations: creditsMigrations },
    logHoldMs: PER_REQUEST_LOG_HOLD_MS,
    providers: [
      withMetrics(CreditsMetrics),
      withDataSource(CreditsRepository),
      {
        provide: CreditsService,
        inject: [CreditsRepository, MessageBus, CreditsMetrics],
        useFactory: (repo: CreditsRepository, bus: MessageBus, metrics: CreditsMetrics) =>
          new CreditsService(repo, bus, metrics),
      },
      CreditsHandler,
      periodicTask({
        provide: 'ReservationSweep',
        name: 'reservation sweep',
        intervalMs: config.RESERVATION_SWEEP_INTERVAL_MS,
        inject: [CreditsService, LOGGER],
        run: async (credits: CreditsService, logger: Logger) => {
          const refunded = await credits.sweepExpired();
          if (refunded > 0) logger.info({ refunded }, 'refunded expired reservations');
        },
      }),
    ],
  });
}
