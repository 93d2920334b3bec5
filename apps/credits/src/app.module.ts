import type { DynamicModule } from '@nestjs/common';
import { serviceModule } from '@emailverify/service-kit';
import { CreditsRepository } from './accounts/credits.repository';
import { CreditsService } from './accounts/credits.service';
import { ReservationSweep } from './accounts/reservation-sweep';
import { UsageService } from './accounts/usage.service';
import { creditsConfig, type CreditsConfig } from './config';
import { CreditsHandler } from './credits.handler';
import { CreditsMetrics } from './credits.metrics';
import { creditsDatabase } from './migrations';

/** The credits service: accounts, API keys and balances, over NATS. */
export function creditsModule(config: Readonly<CreditsConfig>): DynamicModule {
  return serviceModule(creditsConfig, config, {
    database: creditsDatabase,
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
