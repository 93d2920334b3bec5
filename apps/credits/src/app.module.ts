import { type DynamicModule, Module } from '@nestjs/common';
import { MessageBus } from '@emailverify/messaging';
import type { DataSource } from '@emailverify/persistence';
import { ObservabilityModule, serviceProviders } from '@emailverify/service-kit';
import { CreditsRepository } from './accounts/credits.repository';
import { CreditsService } from './accounts/credits.service';
import type { CreditsConfig } from './config';
import { CreditsHandler } from './credits.handler';
import { creditsMigrations } from './migrations';
import { DATA_SOURCE } from './tokens';

@Module({})
export class CreditsAppModule {
  static forRoot(config: Readonly<CreditsConfig>): DynamicModule {
    return {
      module: CreditsAppModule,
      imports: [
        ObservabilityModule.forRoot({
          providers: serviceProviders({
            service: 'credits',
            config,
            database: { schema: 'credits', migrations: creditsMigrations },
          }),
        }),
      ],
      providers: [
        {
          provide: CreditsRepository,
          inject: [DATA_SOURCE],
          useFactory: (db: DataSource) => new CreditsRepository(db),
        },
        {
          provide: CreditsService,
          inject: [CreditsRepository, MessageBus],
          useFactory: (repo: CreditsRepository, bus: MessageBus) => new CreditsService(repo, bus),
        },
        CreditsHandler,
      ],
    };
  }
}
