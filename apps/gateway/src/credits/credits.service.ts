import { Injectable } from '@nestjs/common';
import {
  type BalanceReply,
  LEDGER_PAGE,
  type LedgerListReply,
  Subjects,
  type UsageReply,
} from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { askForAccount } from '../common/account-request';
import type { AuthContext } from '../common/http/request-context';
import { ledgerRange, usageRange } from './date-range';
import type { LedgerQueryDto, UsageQueryDto } from './dto/credits.dto';

/** The caller's credit balance, ledger and usage, from the credits service over NATS. */
@Injectable()
export class CreditsService {
  constructor(private readonly bus: MessageBus) {}

  balance(auth: AuthContext): Promise<BalanceReply> {
    return askForAccount(this.bus, auth, Subjects.creditsBalanceGet, { apiKeyId: auth.apiKeyId });
  }

  /** A page of the account's ledger, newest first; the credits service checks the cursor. */
  ledger(auth: AuthContext, query: LedgerQueryDto): Promise<LedgerListReply> {
    return askForAccount(this.bus, auth, Subjects.creditsLedgerList, {
      limit: query.limit ?? LEDGER_PAGE.default,
      ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      ...ledgerRange(query),
    });
  }

  /** The account's usage per day (both modes: sandbox verifications are counted apart). */
  usage(auth: AuthContext, query: UsageQueryDto): Promise<UsageReply> {
    return askForAccount(this.bus, auth, Subjects.creditsUsageGet, usageRange(query));
  }
}
