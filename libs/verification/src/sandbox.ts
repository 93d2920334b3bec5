import type {
  DomainReason,
  DomainReport,
  Reason,
  VerificationResult,
  VerificationStatus,
} from '@emailverify/contracts';
import { assertValidDomain, parseAddress, parseNormalised, type ParsedAddress } from './address';
import { fallbackResult, scoreFor, syntaxFailure } from './engine';
import { checkDisposable, type DisposableCheck, suggestDomain } from './lists';

/**
 * Sandbox keys get answers chosen by the address instead of verified: integrators build and test against every
 * outcome without touching DNS, SMTP or any other host, and without being charged. This file is the one source
 * of those answers; docs/api.md ("Sandbox") shows SANDBOX_TRIGGERS as a table, and a docs test holds the two
 * equal.
 */

/** How the answer's domain routes mail, as the engine's DNS step would have found it. */
export type SandboxRouting = 'deliverable' | 'domain_not_found' | 'null_mx' | 'no_mx_records' | 'dns_error';

/** One row of the trigger table: the local part (or `+tag`) that chooses an answer, and the answer. */
export interface SandboxTrigger {
  /** Lower case; matched against the `+tag`, else the local part before any `+`. */
  trigger: string;
  status: VerificationStatus;
  /** The reason without `check_smtp` (or whatever it asked for). */
  reason: Reason;
  /** The reason with `check_smtp=true`, when the SMTP answer would change it (`mx_found` becomes `accepted`). */
  smtpReason?: Reason;
  routing: SandboxRouting;
  /**
   * The mail server's answer this outcome stands for: shown as `smtp_check` and `smtp_response` when the
   * request asked for `check_smtp` (nothing is sent anywhere). `accepted` sets `smtp_valid`.
   */
  smtp?: { response: string; accepted: boolean };
  /** The flags the answer sets besides what its routing implies. */
  flags?: Partial<Pick<VerificationResult, 'isCatchall' | 'isRole' | 'isDisposable' | 'isFree'>>;
  /** The domain is on a domain blocklist (SANDBOX_BLOCKLIST). */
  listed?: boolean;
  /** The answer carries a domain suggestion (suggestDomain's, else SANDBOX_SUGGESTION). */
  suggestion?: boolean;
  /** `error_message` of the answer ('' for none), as the live engine words such outcomes. */
  message: string;
  /** What else the answer shows, for the docs table. */
  shows: string;
}

/** The mail host every deliverable sandbox answer names: a reserved name (RFC 2606) that resolves nowhere. */
export const SANDBOX_MX_HOST = 'mx.sandbox.invalid';
/** Its address, from the documentation range (RFC 5737): never contacted. */
export const SANDBOX_MX_IP = '192.0.2.10';
/** The blocklist zone a `risky` answer names. */
export const SANDBOX_BLOCKLIST = 'dbl.sandbox.invalid';
/** The suggestion of a `typo` answer whose domain the lists have none for. */
export const SANDBOX_SUGGESTION = 'gmail.com';

const ACCEPTED = { response: '250 2.1.5 Recipient OK', accepted: true } as const;

/**
 * The trigger table. Any other well-formed address answers as `valid` does; malformed input is refused exactly
 * as with a live key. Every reason the live engine gives a well-formed address has a trigger.
 */
export const SANDBOX_TRIGGERS: readonly SandboxTrigger[] = [
  {
    trigger: 'valid',
    status: 'valid',
    reason: 'mx_found',
    smtpReason: 'accepted',
    routing: 'deliverable',
    smtp: ACCEPTED,
    message: '',
    shows: 'deliverable, score 0.9 (0.99 with `check_smtp`); every address without a trigger answers so',
  },
  {
    trigger: 'invalid',
    status: 'invalid',
    reason: 'mailbox_not_found',
    routing: 'deliverable',
    smtp: { response: '550 5.1.1 No such user', accepted: false },
    message: 'the mail server rejected the address: 550 5.1.1 No such user',
    shows: 'not deliverable',
  },
  {
    trigger: 'full',
    status: 'invalid',
    reason: 'mailbox_full',
    routing: 'deliverable',
    smtp: { response: '552 5.2.2 Mailbox full', accepted: false },
    message: 'the mail server rejected the address: 552 5.2.2 Mailbox full',
    shows: 'not deliverable',
  },
  {
    trigger: 'catchall',
    status: 'catchall',
    reason: 'catch_all',
    routing: 'deliverable',
    smtp: ACCEPTED,
    flags: { isCatchall: true },
    message: '',
    shows: '`is_catchall`',
  },
  {
    trigger: 'role',
    status: 'role',
    reason: 'role_account',
    routing: 'deliverable',
    smtp: ACCEPTED,
    flags: { isRole: true },
    message: '',
    shows: '`is_role`',
  },
  {
    trigger: 'free',
    status: 'valid',
    reason: 'mx_found',
    smtpReason: 'accepted',
    routing: 'deliverable',
    smtp: ACCEPTED,
    flags: { isFree: true },
    message: '',
    shows: '`is_free`',
  },
  {
    trigger: 'disposable',
    status: 'disposable',
    reason: 'disposable_domain',
    routing: 'deliverable',
    flags: { isDisposable: true },
    message: '',
    shows: '`is_disposable`; `/verify/disposable` says disposable',
  },
  {
    trigger: 'risky',
    status: 'risky',
    reason: 'domain_listed',
    routing: 'deliverable',
    smtp: ACCEPTED,
    listed: true,
    message: '',
    shows: `\`domain_reputation\` listed in \`${SANDBOX_BLOCKLIST}\``,
  },
  {
    trigger: 'unknown',
    status: 'unknown',
    reason: 'greylisted',
    routing: 'deliverable',
    smtp: { response: '450 4.2.0 Greylisted, try again later', accepted: false },
    message: 'the server deferred the recipient; retry later',
    shows: 'a file job does not wait for greylisting retries',
  },
  {
    trigger: 'timeout',
    status: 'unknown',
    reason: 'smtp_timeout',
    routing: 'deliverable',
    message: `${SANDBOX_MX_HOST} did not answer in time`,
    shows: '`error_message` says why',
  },
  {
    trigger: 'unreachable',
    status: 'unknown',
    reason: 'smtp_unreachable',
    routing: 'deliverable',
    message: `${SANDBOX_MX_HOST} refused the connection`,
    shows: '`error_message` says why',
  },
  {
    trigger: 'blocked',
    status: 'unknown',
    reason: 'smtp_blocked',
    routing: 'deliverable',
    smtp: { response: '550 5.7.1 Service unavailable', accepted: false },
    message: `${SANDBOX_MX_HOST} refused the probe: 550 5.7.1 Service unavailable`,
    shows: '`error_message` says why',
  },
  {
    trigger: 'capacity',
    status: 'unknown',
    reason: 'mx_only_verification_semaphore_timeout',
    routing: 'deliverable',
    message: `no free SMTP slot for ${SANDBOX_MX_HOST} in time; the verdict rests on DNS alone`,
    shows: '`error_message` says why',
  },
  {
    trigger: 'failed',
    status: 'unknown',
    reason: 'verification_failed',
    routing: 'deliverable',
    message: 'verification failed: sandbox failure',
    shows: '`error_message` says why',
  },
  {
    trigger: 'dns-error',
    status: 'unknown',
    reason: 'dns_error',
    routing: 'dns_error',
    message: 'the DNS lookup of the domain failed (SERVFAIL)',
    shows: '`error_message` says why',
  },
  {
    trigger: 'no-domain',
    status: 'invalid',
    reason: 'domain_not_found',
    routing: 'domain_not_found',
    message: 'the domain does not exist',
    shows: '`valid_domain` false',
  },
  {
    trigger: 'typo',
    status: 'invalid',
    reason: 'domain_not_found',
    routing: 'domain_not_found',
    suggestion: true,
    message: 'the domain does not exist',
    shows: `\`domain_suggestion\`: the lists' suggestion for the domain, else \`${SANDBOX_SUGGESTION}\``,
  },
  {
    trigger: 'null-mx',
    status: 'invalid',
    reason: 'null_mx',
    routing: 'null_mx',
    message: 'the domain publishes a null MX record: it accepts no mail',
    shows: '`mx_records` empty',
  },
  {
    trigger: 'no-mx',
    status: 'invalid',
    reason: 'no_mx_records',
    routing: 'no_mx_records',
    message: 'the domain has no mail host with an address',
    shows: '`mx_records` empty',
  },
];

const BY_TRIGGER = new Map(SANDBOX_TRIGGERS.map((t) => [t.trigger, t]));
const VALID = BY_TRIGGER.get('valid')!;

export interface SandboxOptions {
  /** As VerifyOptions.checkSmtp: the answer shows the SMTP reply its outcome stands for. */
  checkSmtp: boolean;
  /**
   * The address is a normalised form parseAddress produced (a file-job chunk's): split, not parsed again, as
   * VerificationEngine.verifyNormalised does.
   */
  normalised?: boolean;
}

/**
 * The trigger of a local part: its `+tag` when that names one, else the part before the `+` (case-insensitive),
 * else `valid`. A quoted local part is read without its quotes.
 */
export function sandboxTrigger(local: string): SandboxTrigger {
  const bare = (local.startsWith('"') ? local.slice(1, -1).replace(/\\(.)/g, '$1') : local).toLowerCase();
  const plus = bare.indexOf('+');
  if (plus < 0) return BY_TRIGGER.get(bare) ?? VALID;
  return BY_TRIGGER.get(bare.slice(plus + 1)) ?? BY_TRIGGER.get(bare.slice(0, plus)) ?? VALID;
}

/**
 * A sandbox key's answer for an address: the result the live engine would give for the trigger's outcome, in
 * the same shape, from the address alone (no DNS, no SMTP, no other lookup). Malformed input gets the engine's
 * own syntax result (invalid `invalid_syntax` or `missing_email`). Never throws.
 */
export function sandboxVerdict(address: unknown, options: SandboxOptions): VerificationResult {
  const parsed =
    options.normalised === true && typeof address === 'string'
      ? parseNormalised(address)
      : parseAddress(address);
  if (!parsed.ok) return syntaxFailure(address, parsed);
  return answer(parsed, sandboxTrigger(parsed.local), options.checkSmtp);
}

/**
 * A sandbox key's `/verify/disposable` answer: the same syntax check (DomainError INVALID_EMAIL), and
 * disposable only for the `disposable` trigger.
 */
export function sandboxDisposable(email: unknown): DisposableCheck {
  const checked = checkDisposable(email);
  const local = checked.email.slice(0, checked.email.lastIndexOf('@'));
  return { ...checked, isDisposable: sandboxTrigger(local).flags?.isDisposable === true };
}

/**
 * A sandbox key's domain report: the trigger is the domain's first label (`catchall.example.com`), and the
 * report is what the engine's domain report says of a domain with that outcome. The domain is checked as for a
 * live key (DomainError INVALID_REQUEST naming `domain`).
 */
export function sandboxDomainReport(input: unknown, options: SandboxOptions): DomainReport {
  const domain = assertValidDomain(input);
  const dot = domain.indexOf('.');
  const trigger = sandboxTrigger(dot < 0 ? domain : domain.slice(0, dot));
  const deliverable = trigger.routing === 'deliverable';
  const exists = trigger.routing !== 'domain_not_found' && trigger.routing !== 'dns_error';
  return {
    domain,
    acceptsMail: deliverable,
    reason: domainReason(trigger.routing),
    mxRecords: deliverable ? [SANDBOX_MX_HOST] : [],
    mxHosts: deliverable ? [{ host: SANDBOX_MX_HOST, preference: 10, addresses: [SANDBOX_MX_IP] }] : [],
    hasNullMx: trigger.routing === 'null_mx',
    implicitMx: false,
    isCatchall: options.checkSmtp && deliverable ? catchAllVerdict(trigger) : null,
    isDisposable: trigger.flags?.isDisposable === true,
    isFree: trigger.flags?.isFree === true,
    domainAge: 0,
    domainReputation: {
      ...reputation(trigger, deliverable),
      mxIps: deliverable ? [{ ip: SANDBOX_MX_IP, blacklists: [] }] : [],
    },
    spf: exists ? { present: true, record: 'v=spf1 mx -all' } : { present: false, record: null },
    dmarc: exists ? { present: true, policy: 'none' } : { present: false, policy: null },
    responseTime: 0,
  };
}

/**
 * The docs table's rows, cell by cell: trigger, status, reason, what else the answer shows, and the domain
 * report of a domain whose first label is the trigger.
 */
export function sandboxTableRows(): string[][] {
  return SANDBOX_TRIGGERS.map((t) => [
    `\`${t.trigger}@\`, \`x+${t.trigger}@\``,
    `\`${t.status}\``,
    t.smtpReason ? `\`${t.reason}\` (\`${t.smtpReason}\` with \`check_smtp\`)` : `\`${t.reason}\``,
    t.shows,
    domainCell(t),
  ]);
}

/** What the domain report of a domain whose first label is the trigger says (docs table). */
function domainCell(t: SandboxTrigger): string {
  if (t.routing !== 'deliverable') return `\`accepts_mail\` false, \`${domainReason(t.routing)}\``;
  const parts = ['`accepts_mail`'];
  const catchAll = catchAllVerdict(t);
  parts.push(
    catchAll === null ? '`is_catchall` null' : `\`is_catchall\` ${String(catchAll)} with \`check_smtp\``,
  );
  if (t.flags?.isDisposable) parts.push('`is_disposable`');
  if (t.flags?.isFree) parts.push('`is_free`');
  if (t.listed) parts.push('listed');
  return parts.join(', ');
}

/** The engine's result for the trigger's outcome, built from the same starting point (fallbackResult). */
function answer(parsed: ParsedAddress, trigger: SandboxTrigger, checkSmtp: boolean): VerificationResult {
  const result = fallbackResult(parsed.email, parsed.domain);
  result.validFormat = true;
  result.isCatchall = trigger.flags?.isCatchall === true;
  result.isRole = trigger.flags?.isRole === true;
  result.isDisposable = trigger.flags?.isDisposable === true;
  result.isFree = trigger.flags?.isFree === true;
  if (trigger.suggestion) result.domainSuggestion = suggestDomain(parsed.domain) || SANDBOX_SUGGESTION;
  const deliverable = trigger.routing === 'deliverable';
  result.validDomain = trigger.routing !== 'domain_not_found' && trigger.routing !== 'dns_error';
  result.validMx = deliverable;
  if (deliverable) {
    result.mxRecords = [SANDBOX_MX_HOST];
    result.domainReputation = reputation(trigger, true);
  }
  const smtp = checkSmtp && deliverable ? trigger.smtp : undefined;
  if (smtp) {
    result.smtpCheck = true;
    result.smtpResponse = smtp.response;
    result.smtpValid = smtp.accepted;
  }
  result.status = trigger.status;
  result.reason = smtp && trigger.smtpReason ? trigger.smtpReason : trigger.reason;
  result.score = scoreFor(trigger.status, result.smtpValid);
  // As the engine: an MX-only verdict or an accepted mailbox is deliverable; a refusal or an unknown is not.
  result.isDeliverable =
    deliverable && trigger.status !== 'invalid' && trigger.status !== 'unknown' && (!smtp || smtp.accepted);
  result.errorMessage = trigger.message;
  return result;
}

function reputation(trigger: SandboxTrigger, checked: boolean): VerificationResult['domainReputation'] {
  return {
    mxIp: checked ? SANDBOX_MX_IP : '',
    isListed: trigger.listed === true,
    blacklists: trigger.listed ? [SANDBOX_BLOCKLIST] : [],
    checked,
  };
}

/** The catch-all verdict of a domain report with the probe: null when the outcome says nothing conclusive. */
function catchAllVerdict(trigger: SandboxTrigger): boolean | null {
  if (trigger.status === 'unknown') return null;
  return trigger.flags?.isCatchall === true;
}

function domainReason(routing: SandboxRouting): DomainReason {
  return routing === 'deliverable' ? 'mx_found' : routing;
}
