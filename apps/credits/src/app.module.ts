import type { DynamicModule } from '@nestjs/common';
import { MessageBus } from '@emailverify/messaging';
import { serviceModule, withDataSource } from '@emailverify/service-kit';
import { CreditsRepository } from './accounts/credits.repository';
import { CreditsService } from './accounts/credits.service';
import type { CreditsConfig } from './config';
import { CreditsHandler } from './credits.handler';
import { creditsMigrations } from './migrations';

/** The credits service: accounts, API keys and balances, over NATS. */
export function creditsModule(config: Readonly<CreditsConfig>): DynamicModule {
  return serviceModule('credits', config, {
    database: { schema: 'credits', migrations: creditsMigrations },
    providers: [
      withDataSource(CreditsRepository),
      {
        provide: CreditsService,
        inject: [CreditsRepository, MessageBus],
        useFactory: (repo: CreditsRepository, bus: MessageBus) => new CreditsService(repo, bus),
      },
      CreditsHandler,
    ],
  });
}
