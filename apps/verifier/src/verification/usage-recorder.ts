import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  type AccountId,
  type KeyMode,
  Subjects,
  USAGE_RECORD_MAX,
  type UsageRecordEntry,
  type VerificationStatus,
} from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { Batches, LOGGER } from '@emailverify/service-kit';
import type { Logger } from 'pino';

/**
 * Counts single and bulk verifications in the account's daily usage (credits.usage.record), by status and key
 * mode. No reply waits for it: the counts of the requests that end while one record is under way go out
 * together in the next, added up per account, mode and status. A record the credits service does not take is
 * logged and lost (usage is a report; the credits themselves are in the ledger).
 */
@Injectable()
export class UsageRecorder {
  private readonly records: Batches<UsageRecordEntry>;

  constructor(
    @Inject(MessageBus) bus: Pick<MessageBus, 'request'>,
    @Inject(LOGGER) private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.records = new Batches(async (entries) => {
      await bus.request(Subjects.creditsUsageRecord, {
        key: `usage:${randomUUID()}`,
        entries: addedUp(entries),
      });
    }, USAGE_RECORD_MAX);
  }

  /** Counts these results' statuses for the account; returns at once. */
  count(accountId: AccountId, mode: KeyMode, results: Iterable<{ status: VerificationStatus }>): void {
    const tally = new Map<VerificationStatus, number>();
    for (const { status } of results) tally.set(status, (tally.get(status) ?? 0) + 1);
    if (tally.size === 0) return;
    const entries = [...tally].map(([status, count]) => ({ accountId, mode, status, count }));
    this.records.addAll(entries).catch((err: unknown) => {
      this.logger.warn({ err, entries: entries.length }, 'usage not recorded; the counts are lost');
    });
  }

  /** Waits for the records under way (at shutdown, before the bus drains). */
  drain(): Promise<void> {
    return this.records.flush();
  }
}

/** One entry per account, mode and status. */
function addedUp(entries: readonly UsageRecordEntry[]): UsageRecordEntry[] {
  const sums = new Map<string, UsageRecordEntry>();
  for (const e of entries) {
    const key = `${e.accountId}\u0000${e.mode}\u0000${e.status}`;
    const sum = sums.get(key);
    if (sum) sum.count += e.count;
    else sums.set(key, { ...e });
  }
  return [...sums.values()];
}
