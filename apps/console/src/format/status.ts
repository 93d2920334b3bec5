// Verdicts in words, each with a glyph and a shape so colour is never the only thing that tells them apart.
import type { Reason, VerificationStatus } from '@emailverify/contracts';

export interface StatusLook {
  label: string;
  /** A text glyph shown beside the label (hidden from screen readers, which read the label). */
  glyph: string;
  /** What it means for sending. */
  meaning: string;
  /** The CSS modifier: colour and border style (solid, dashed, dotted, double) per status. */
  tone: 'good' | 'bad' | 'unsure' | 'warn';
}

export const STATUS_LOOK: Record<VerificationStatus, StatusLook> = {
  valid: { label: 'Valid', glyph: '✓', meaning: 'Safe to send to', tone: 'good' },
  invalid: { label: 'Invalid', glyph: '✕', meaning: 'Will bounce: do not send', tone: 'bad' },
  unknown: { label: 'Unknown', glyph: '?', meaning: 'Could not be checked this time', tone: 'unsure' },
  risky: { label: 'Risky', glyph: '!', meaning: 'May bounce or harm your sending reputation', tone: 'warn' },
  disposable: {
    label: 'Disposable',
    glyph: '⊘',
    meaning: 'A throwaway mailbox that will soon stop working',
    tone: 'bad',
  },
  catchall: {
    label: 'Catch-all',
    glyph: '∗',
    meaning: 'The domain accepts every address, so this one cannot be confirmed',
    tone: 'unsure',
  },
  role: {
    label: 'Role account',
    glyph: '@',
    meaning: 'A shared mailbox such as info@ or sales@',
    tone: 'warn',
  },
};

/** The order the console lists verdicts in, best first. */
export const STATUS_ORDER: readonly VerificationStatus[] = [
  'valid',
  'invalid',
  'unknown',
  'catchall',
  'role',
  'disposable',
  'risky',
];

export const REASON_WORDS: Record<Reason, string> = {
  accepted: 'The mail server accepted this mailbox.',
  mx_found: 'The domain has mail servers; the mailbox itself was not asked about.',
  catch_all: 'The domain accepts mail for any address, so this mailbox cannot be confirmed.',
  role_account: 'This is a role address (such as info@ or sales@) that usually reaches a team.',
  disposable_domain: 'The domain belongs to a disposable e-mail provider.',
  domain_listed: 'The domain or its mail server is on a spam blocklist.',
  invalid_syntax: 'The address is not written correctly.',
  missing_email: 'There was no address to check.',
  domain_not_found: 'The domain does not exist.',
  null_mx: 'The domain says it receives no mail.',
  no_mx_records: 'The domain has no mail servers.',
  mailbox_not_found: 'The mail server says this mailbox does not exist.',
  mailbox_full: 'The mailbox is full and refuses new mail.',
  greylisted: 'The mail server asked to be tried again later (greylisting).',
  smtp_unreachable: 'The mail server could not be reached.',
  smtp_timeout: 'The mail server did not answer in time.',
  smtp_blocked: 'The mail server refused to be asked.',
  dns_error: 'The domain’s mail setup could not be looked up.',
  mx_only_verification_semaphore_timeout:
    'The mail server is busy with other checks; only its mail setup was checked this time.',
  verification_failed: 'The check could not be completed.',
};

/** How many results have each status, in STATUS_ORDER, leaving out the statuses none has. */
export function countByStatus(
  results: ReadonlyArray<{ status: string }>,
): Array<[VerificationStatus, number]> {
  return STATUS_ORDER.map((status): [VerificationStatus, number] => [
    status,
    results.filter((result) => result.status === status).length,
  ]).filter(([, count]) => count > 0);
}

/** The reason in words; an unknown reason (a newer service) as the service wrote it. */
export function reasonWords(reason: string): string {
  return Object.prototype.hasOwnProperty.call(REASON_WORDS, reason)
    ? REASON_WORDS[reason as Reason]
    : reason.replaceAll('_', ' ');
}

export function isStatus(value: string): value is VerificationStatus {
  return Object.prototype.hasOwnProperty.call(STATUS_LOOK, value);
}
