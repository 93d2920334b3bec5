import { Injectable } from '@nestjs/common';
import { type BalanceReply, Subjects } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import type { AuthContext } from '../common/http/request-context';

/** The caller's credit balance, from the credits service over NATS. */
@Injectable()
export class CreditsService {
  constructor(private readonly bus: MessageBus) {}

  balance(auth: AuthContext): Promise<BalanceReply> {
    return this.bus.request(
      Subjects.creditsBalanceGet,
      { accountId: auth.accountId, apiKeyId: auth.apiKeyId },
      { requestId: auth.requestId },
    );
  }
}
