// The credits ledger in words: what each grant, charge and refund was for, with a signed amount.
import type { Schemas } from '@emailverify/client';
import { formatCount } from '../../format/numbers';

export type LedgerEntry = Schemas['LedgerPage']['entries'][number];

const SOURCE_WORDS: Record<NonNullable<LedgerEntry['source']>, string> = {
  single: 'a single address',
  bulk: 'a bulk verification',
  domain: 'a domain report',
  file: 'a list (file job)',
  other: 'other work',
};

/** What an entry was: "Credits added", "Charge for a bulk verification", "Refund of unused credits of a list". */
export function ledgerEntryWords(entry: Pick<LedgerEntry, 'type' | 'source'>): string {
  const what = entry.source ? SOURCE_WORDS[entry.source] : undefined;
  switch (entry.type) {
    case 'grant':
      return 'Credits added';
    case 'charge':
      return what ? `Charge for ${what}` : 'Charge';
    case 'refund':
      return what ? `Refund of unused credits for ${what}` : 'Refund of unused credits';
  }
}

/** "+1,000" or "−3" (a true minus sign), so the direction reads without colour. */
export function signedAmount(amount: number): string {
  if (amount > 0) return `+${formatCount(amount)}`;
  if (amount < 0) return `−${formatCount(-amount)}`;
  return '0';
}

/** The amount for screen readers and titles: "3 credits taken", "1 credit given back", "1,000 credits added". */
export function amountWords(entry: Pick<LedgerEntry, 'type' | 'amount'>): string {
  const n = Math.abs(entry.amount);
  const credits = `${formatCount(n)} credit${n === 1 ? '' : 's'}`;
  if (entry.amount < 0) return `${credits} taken`;
  return entry.type === 'grant' ? `${credits} added` : `${credits} given back`;
}

/** What the entry points to: the list it paid for (linkable), or the request id to quote. */
export function ledgerReference(
  entry: Pick<LedgerEntry, 'job_id' | 'request_id'>,
): { kind: 'job'; id: string } | { kind: 'request'; id: string } | undefined {
  if (entry.job_id) return { kind: 'job', id: entry.job_id };
  if (entry.request_id) return { kind: 'request', id: entry.request_id };
  return undefined;
}
