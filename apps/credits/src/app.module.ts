import { type DynamicModule, Module } from '@nestjs/common';
import { MessageBus } from '@emailverify/messaging';
import { serviceModule, withDataSource } from '@emailverify/service-kit';
import { CreditsRepository } from './accounts/credits.repository';
import { CreditsService } from './accounts/credits.service';
import type { CreditsConfig } from './config';
import { CreditsHandler } from './credits.handler';
import { creditsMigrations } from './migrations';

@Module({})
export class CreditsAppModule {
  static forRoot(config: Readonly<CreditsConfig>): DynamicModule {
    return serviceModule(CreditsAppModule, {
      service: 'credits',
      config,
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
}
