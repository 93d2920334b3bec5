import type { BalanceReply } from '@emailverify/contracts';
import type { Presenter } from '../common/http/presenter';
import type { RateLimitState } from '../common/http/request-context';

export interface CreditsView {
  balance: BalanceReply;
  rateLimit: RateLimitState;
}

export const CreditsPresenter: Presenter<CreditsView> = {
  current: ({ balance }) => ({
    account_id: balance.accountId,
    api_key_id: balance.apiKeyId,
    api_key_name: balance.apiKeyName,
    credits_balance: balance.balance,
    credits_consumed: balance.consumed,
    credits_added: balance.added,
    last_updated: balance.updatedAt,
    // Added to the contract's fields: which kind of key asked (a sandbox key's balance never moves).
    mode: balance.mode,
  }),
  legacy: ({ balance, rateLimit }) => ({
    available: balance.balance,
    used: balance.consumed,
    total: balance.added,
    plan: balance.plan,
    // Credits do not expire on any plan, so the only reset is the rate-limit window's.
    resets_at: new Date(rateLimit.resetAt * 1000).toISOString(),
    rate_limit: { requests_per_hour: rateLimit.limit * 60, remaining: rateLimit.remaining },
  }),
};
