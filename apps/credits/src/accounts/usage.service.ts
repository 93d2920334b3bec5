import { Injectable } from '@nestjs/common';
import {
  DomainError,
  type LedgerEntry,
  type LedgerListReply,
  type LedgerListRequest,
  type LedgerSource,
  type UsageCounts,
  type UsageGetRequest,
  type UsageRecordReply,
  type UsageRecordRequest,
  type UsageReply,
  USAGE_RANGE_MAX_DAYS,
  VERIFICATION_STATUSES,
  type VerificationStatus,
} from '@emailverify/contracts';
import { CreditsRepository, type LedgerRow } from './credits.repository';

const DAY_MS = 86_400_000;

/**
 * What an account's credits went to: the ledger page by page, and its daily usage (credits from the ledger,
 * verifications by status from the usage records that verifier and file-jobs send).
 */
@Injectable()
export class UsageService {
  constructor(private readonly repo: CreditsRepository) {}

  async ledger(req: LedgerListRequest): Promise<LedgerListReply> {
    await this.account(req.accountId);
    const rows = await this.repo.ledgerPage({
      accountId: req.accountId,
      limit: req.limit + 1,
      before: req.cursor === undefined ? null : decodeCursor(req.cursor),
      from: req.from === undefined ? null : new Date(req.from),
      to: req.to === undefined ? null : new Date(req.to),
    });
    const page = rows.slice(0, req.limit);
    return {
      entries: page.map(ledgerEntry),
      nextCursor: rows.length > req.limit ? encodeCursor(page[page.length - 1]!.id) : null,
    };
  }

  async usage(req: UsageGetRequest): Promise<UsageReply> {
    const days = daysOf(req.from, req.to);
    await this.account(req.accountId);
    const [credits, counted] = await Promise.all([
      this.repo.ledgerByDay(req.accountId, req.from, req.to),
      this.repo.usageByDay(req.accountId, req.from, req.to),
    ]);
    const byDay = new Map(days.map((date) => [date, zero()]));
    for (const row of credits) {
      const day = byDay.get(row.day);
      if (!day) continue;
      day.creditsAdded += row.added;
      day.creditsUsed += row.used;
    }
    for (const row of counted) {
      const day = byDay.get(row.day);
      if (!day) continue;
      (row.mode === 'sandbox' ? day.sandboxVerifications : day.verifications)[row.status] += row.count;
    }
    const totals = zero();
    for (const day of byDay.values()) add(totals, day);
    return {
      from: req.from,
      to: req.to,
      granularity: 'day',
      days: days.map((date) => ({ date, ...byDay.get(date)! })),
      totals,
    };
  }

  async record(req: UsageRecordRequest): Promise<UsageRecordReply> {
    return { recorded: await this.repo.recordUsage(req.key, req.entries) };
  }

  /** Forgets the keys of usage records counted more than a day ago; returns how many. */
  async pruneRecordKeys(batch = 1_000): Promise<number> {
    let pruned = 0;
    for (;;) {
      const n = await this.repo.pruneUsageKeysInternal(batch);
      pruned += n;
      if (n < batch) return pruned;
    }
  }

  private async account(accountId: LedgerListRequest['accountId']): Promise<void> {
    if (!(await this.repo.findAccount(accountId)))
      throw new DomainError('ACCOUNT_NOT_FOUND', 'Account not found');
  }
}

/** Every date of [from, to] (YYYY-MM-DD, UTC), refused when the range is reversed or too long. */
function daysOf(from: string, to: string): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  const count = (end - start) / DAY_MS + 1;
  if (!(count >= 1))
    throw new DomainError('INVALID_REQUEST', 'from: must not be after to', { field: 'from' });
  if (count > USAGE_RANGE_MAX_DAYS)
    throw new DomainError('INVALID_REQUEST', `to: the range covers at most ${USAGE_RANGE_MAX_DAYS} days`, {
      field: 'to',
    });
  return Array.from({ length: count }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
}

function statuses(): Record<VerificationStatus, number> {
  return Object.fromEntries(VERIFICATION_STATUSES.map((s) => [s, 0])) as Record<VerificationStatus, number>;
}

function zero(): UsageCounts {
  return { creditsAdded: 0, creditsUsed: 0, verifications: statuses(), sandboxVerifications: statuses() };
}

function add(into: UsageCounts, day: UsageCounts): void {
  into.creditsAdded += day.creditsAdded;
  into.creditsUsed += day.creditsUsed;
  for (const s of VERIFICATION_STATUSES) {
    into.verifications[s] += day.verifications[s];
    into.sandboxVerifications[s] += day.sandboxVerifications[s];
  }
}

const KINDS = { grant: 'grant', reserve: 'charge', refund: 'refund' } as const;
const SOURCES: readonly LedgerSource[] = ['single', 'bulk', 'domain', 'file'];

/**
 * A ledger row as customers see it. What a charge or refund paid for comes from its reservation's idempotency
 * key: `file:<jobId>`, or `<single|bulk|domain>:<requestId>:<uuid>` (a request id may itself hold colons).
 */
function ledgerEntry(row: LedgerRow): LedgerEntry {
  const entry: LedgerEntry = {
    id: row.id,
    kind: KINDS[row.kind],
    amount: row.amount,
    balanceAfter: row.balance_after,
    createdAt: row.created_at.toISOString(),
    source: null,
    requestId: null,
    jobId: null,
  };
  const key = row.idempotency_key;
  if (key === null) return entry;
  const colon = key.indexOf(':');
  const prefix = key.slice(0, colon);
  const source = (SOURCES as readonly string[]).includes(prefix) ? (prefix as LedgerSource) : 'other';
  if (source === 'file') return { ...entry, source, jobId: key.slice(colon + 1) };
  if (source === 'other') return { ...entry, source };
  const last = key.lastIndexOf(':');
  return { ...entry, source, requestId: last > colon ? key.slice(colon + 1, last) : null };
}

/** A page cursor: the last row's id, wrapped so callers treat it as opaque. */
function encodeCursor(id: string): string {
  return Buffer.from(JSON.stringify(['ledger', id])).toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const [tag, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (tag === 'ledger' && typeof id === 'string' && /^[1-9]\d{0,17}$/.test(id)) return id;
  } catch {
    // fall through
  }
  throw new DomainError('INVALID_REQUEST', 'cursor: not a cursor this service gave out', { field: 'cursor' });
}
