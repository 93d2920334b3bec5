import type {
  BalanceReply,
  LedgerEntry,
  LedgerListReply,
  UsageCounts,
  UsageReply,
} from '@emailverify/contracts';
import { inBothStyles, type Presenter } from '../common/http/presenter';
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

// The ledger and usage have no older variant: their presenters are the same in both styles.

function ledgerEntryBody(entry: LedgerEntry): Record<string, unknown> {
  return {
    id: entry.id,
    type: entry.kind,
    amount: entry.amount,
    balance_after: entry.balanceAfter,
    created_at: entry.createdAt,
    source: entry.source,
    request_id: entry.requestId,
    job_id: entry.jobId,
  };
}

/** GET /credits/ledger: newest first, with the cursor of the next page (null on the last). */
export const LedgerPresenter = inBothStyles<LedgerListReply>(({ entries, nextCursor }) => ({
  entries: entries.map(ledgerEntryBody),
  next_cursor: nextCursor,
}));

const sum = (counts: Record<string, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);

function countsBody(counts: UsageCounts): Record<string, unknown> {
  return {
    credits_added: counts.creditsAdded,
    credits_used: counts.creditsUsed,
    verifications: { total: sum(counts.verifications), ...counts.verifications },
    sandbox_verifications: { total: sum(counts.sandboxVerifications), ...counts.sandboxVerifications },
  };
}

/** GET /credits/usage: every day of the range, oldest first, and the totals. */
export const UsagePresenter = inBothStyles<UsageReply>((usage) => ({
  from: usage.from,
  to: usage.to,
  granularity: usage.granularity,
  days: usage.days.map((day) => ({ date: day.date, ...countsBody(day) })),
  totals: countsBody(usage.totals),
}));
