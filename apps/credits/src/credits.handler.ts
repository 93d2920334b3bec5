import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { RouteServer } from '@emailverify/service-kit';
import { CreditsService } from './accounts/credits.service';
import { UsageService } from './accounts/usage.service';
import { CreditsPayloads as P } from './credits.schemas';

/** NATS entry points of the credits service: each one line into the service. */
@Injectable()
export class CreditsHandler implements OnApplicationBootstrap {
  constructor(
    private readonly server: RouteServer,
    private readonly credits: CreditsService,
    private readonly usage: UsageService,
  ) {}

  onApplicationBootstrap(): void {
    const c = this.credits;
    const u = this.usage;
    this.server.serveRoutes(QueueGroups.credits, Subjects.creditsPing, {
      [Subjects.creditsAuthResolve]: { parse: P.authResolve, handle: (r) => c.resolveKey(r.keyHash) },
      [Subjects.creditsBalanceGet]: { parse: P.balanceGet, handle: (r) => c.balance(r) },
      [Subjects.creditsReserve]: { parse: P.reserve, handle: (r) => c.reserve(r) },
      [Subjects.creditsReserveMany]: {
        parse: P.reserveMany,
        handle: (r) => c.reserveMany(r.reservations, r.close),
      },
      [Subjects.creditsSettle]: { parse: P.settle, handle: (r) => c.settle(r) },
      [Subjects.creditsCloseUsed]: { parse: P.closeUsed, handle: (r) => c.closeUsed(r) },
      [Subjects.creditsAccountCreate]: { parse: P.accountCreate, handle: (r) => c.createAccount(r) },
      [Subjects.creditsBalanceAdd]: { parse: P.balanceAdd, handle: (r) => c.addCredits(r) },
      [Subjects.creditsKeyCreate]: { parse: P.keyCreate, handle: (r) => c.createKey(r) },
      [Subjects.creditsKeySetStyle]: { parse: P.keySetStyle, handle: (r) => c.setStyle(r.apiKeyId, r.style) },
      [Subjects.creditsKeyRevoke]: { parse: P.keyRevoke, handle: (r) => c.revokeKey(r.apiKeyId) },
      [Subjects.creditsKeyList]: { parse: P.keyList, handle: (r) => c.listKeys(r.accountId, r.mode) },
      [Subjects.creditsAccountKeyRevoke]: { parse: P.accountKeyRevoke, handle: (r) => c.revokeAccountKey(r) },
      [Subjects.creditsLedgerList]: { parse: P.ledgerList, handle: (r) => u.ledger(r) },
      [Subjects.creditsUsageGet]: { parse: P.usageGet, handle: (r) => u.usage(r) },
      [Subjects.creditsUsageRecord]: { parse: P.usageRecord, handle: (r) => u.record(r) },
    });
  }
}
