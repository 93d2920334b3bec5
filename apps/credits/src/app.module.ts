import type { DynamicModule } from '@nestjs/common';
import { serviceModule } from '@emailverify/service-kit';
import { CreditsRepository } from './accounts/credits.repository';
import { CreditsService } from './accounts/credits.service';
import { ReservationSweep } from './accounts/reservation-sweep';
import { UsageService } from './accounts/usage.service';
import { CREDITS_CONFIG, type CreditsConfig } from './config';
import { CreditsHandler } from './credits.handler';
import { CreditsMetrics } from './credits.metrics';
import { creditsMigrations } from './migrations';

/** The credits service: accounts, API keys and balances, over NATS. */
export function creditsModule(config: Readonly<CreditsConfig>): DynamicModule {
  return serviceModule('credits', config, {
    configToken: CREDITS_CONFIG,
    database: { schema: 'credits', migrations: creditsMigrations },
    providers: [
      CreditsMetrics,
      CreditsRepository,
      CreditsService,
      UsageService,
      CreditsHandler,
      ReservationSweep,
    ],
  });
}
