import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import type { DataSource } from '@emailverify/persistence';
import { LOGGER, Metrics, serveRoutes } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { CreditsService } from './accounts/credits.service';
import { CreditsPayloads as P } from './credits.schemas';
import { DATA_SOURCE } from './tokens';

/** NATS entry points of the credits service: each one line into the service. */
@Injectable()
export class CreditsHandler implements OnApplicationBootstrap {
  constructor(
    private readonly bus: MessageBus,
    private readonly credits: CreditsService,
    @Inject(DATA_SOURCE) private readonly db: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    const c = this.credits;
    serveRoutes(
      this.bus,
      QueueGroups.credits,
      {
        [Subjects.creditsAuthResolve]: { parse: P.authResolve, handle: (r) => c.resolveKey(r.keyHash) },
        [Subjects.creditsBalanceGet]: { parse: P.balanceGet, handle: (r) => c.balance(r) },
        [Subjects.creditsReserve]: { parse: P.reserve, handle: (r) => c.reserve(r) },
        [Subjects.creditsSettle]: { parse: P.settle, handle: (r) => c.settle(r) },
        [Subjects.creditsAccountCreate]: { parse: P.accountCreate, handle: (r) => c.createAccount(r) },
        [Subjects.creditsBalanceAdd]: { parse: P.balanceAdd, handle: (r) => c.addCredits(r) },
        [Subjects.creditsKeyCreate]: { parse: P.keyCreate, handle: (r) => c.createKey(r) },
        [Subjects.creditsKeySetStyle]: {
          parse: P.keySetStyle,
          handle: (r) => c.setStyle(r.apiKeyId, r.style),
        },
        [Subjects.creditsKeyRevoke]: { parse: P.keyRevoke, handle: (r) => c.revokeKey(r.apiKeyId) },
        [Subjects.creditsKeyList]: { parse: P.keyList, handle: (r) => c.listKeys(r.accountId) },
        [Subjects.creditsPing]: { parse: P.ping, handle: () => this.ping() },
      },
      this.logger,
      this.metrics,
    );
  }

  /** The gateway's readiness asks each service; this one answers only when its database does. */
  private async ping(): Promise<{ service: string; ok: boolean }> {
    await this.db.query('SELECT 1');
    return { service: 'credits', ok: true };
  }
}
