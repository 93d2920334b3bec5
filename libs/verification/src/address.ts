import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { DomainError } from '@emailverify/contracts';

/** RFC 5321 4.5.3.1.1: the local part holds at most 64 octets. */
export const MAX_LOCAL_PART_OCTETS = 64;
/** RFC 5321 4.5.3.1.3 path limit (256) less the angle brackets. */
export const MAX_ADDRESS_OCTETS = 254;
/** RFC 1035: 255 octets on the wire is 253 characters in text form. */
const MAX_DOMAIN_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

export interface ParsedAddress {
  ok: true;
  /** Local part exactly as given (case and quoting kept: only the receiving host may interpret it). */
  local: string;
  /** Lowercase ASCII domain (punycode for IDN), or a lowercase address literal such as `[127.0.0.1]`. */
  domain: string;
  /** `local@domain`, the normalised form used as the identity of the address. */
  email: string;
  /** Set for address literals: the bare IP address to connect to. */
  ipLiteral?: string;
}

export interface AddressError {
  ok: false;
  reason: 'invalid_syntax' | 'missing_email';
  message: string;
}

export type AddressParseResult = ParsedAddress | AddressError;

const ATEXT_ASCII = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]$/;
/** ATEXT_ASCII as a table by character code (1: allowed), for the per-character loop over a local part. */
const ATEXT_CODES = Uint8Array.from({ length: 128 }, (_, code) =>
  ATEXT_ASCII.test(String.fromCharCode(code)) ? 1 : 0,
);
// Non-ASCII is allowed by RFC 6531, but control, surrogate and separator characters never form a usable
// mailbox name and would make the address ambiguous when printed or sent on the wire.
const FORBIDDEN_NON_ASCII = /[\p{Cc}\p{Cs}\p{Z}]/u;
// Control (Cc) and invisible format (Cf: U+200B, U+202E, U+FEFF...) characters make an address that prints as
// something else than it is; none is allowed anywhere, quoted or not.
const CONTROL_OR_FORMAT = /[\p{Cc}\p{Cf}]/u;
const DOMAIN_INPUT_ASCII = /^[A-Za-z0-9.-]$/;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Parses and normalises an address per RFC 5321 (mailbox) with RFC 6531 UTF-8 local parts. Never throws.
 */
export function parseAddress(input: unknown): AddressParseResult {
  if (typeof input !== 'string') return missing('no email address was given');
  const text = input.trim();
  if (text.length === 0) return missing('the email address is empty');
  // Printable ASCII (most addresses) holds no control or format character, and is one octet a character.
  const printable = isPrintableAscii(text);
  const hidden = printable ? null : CONTROL_OR_FORMAT.exec(text);
  if (hidden) return invalid(`the address contains ${describe(hidden[0])}, a control or invisible character`);

  const split = splitAddress(text);
  if (!split.ok) return split;
  const { local, rawDomain } = split;

  const localProblem = checkLocalPart(local);
  if (localProblem) return invalid(localProblem);
  const localOctets = printable ? local.length : octets(local);
  if (localOctets > MAX_LOCAL_PART_OCTETS) {
    return invalid(
      `the local part is ${localOctets} octets long; at most ${MAX_LOCAL_PART_OCTETS} are allowed`,
    );
  }

  // Most domains are written in their normalised form already: checked as they are, with no memo lookup.
  const plain = plainDomain(rawDomain);
  const domain = plain === undefined ? normaliseDomainMemo(rawDomain) : { ok: true as const, domain: plain };
  if (!domain.ok) return { ...domain };

  // The text is local part, "@" and the domain as given: when that domain is its normalised form, the text is
  // the normalised address.
  const email = plain === undefined ? `${local}@${domain.domain}` : text;
  // The normalised domain is ASCII (punycode or an address literal).
  const emailOctets = localOctets + 1 + domain.domain.length;
  if (emailOctets > MAX_ADDRESS_OCTETS) {
    return invalid(`the address is ${emailOctets} octets long; at most ${MAX_ADDRESS_OCTETS} are allowed`);
  }
  const parsed: ParsedAddress = { ok: true, local, domain: domain.domain, email };
  if (domain.ipLiteral) parsed.ipLiteral = domain.ipLiteral;
  return parsed;
}

/**
 * The parse of an address already in its normalised form (the `email` of a successful parseAddress), as
 * file-job chunks carry them: split at the last "@" instead of parsed again, a fraction of the cost of a full
 * parse with its domain-memo lookup. Only for normalised addresses: the local part is not checked again. A
 * domain that is not plain lowercase ASCII (an address literal, say) gets the full parse.
 */
export function parseNormalised(email: string): AddressParseResult {
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1 || !isPlainDomain(email, at + 1)) return parseAddress(email);
  return { ok: true, local: email.slice(0, at), domain: email.slice(at + 1), email };
}

/** True when text[from..] holds only a-z, 0-9, "." and "-": the form domainToASCII leaves a domain in. */
function isPlainDomain(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 46 || c === 45)) return false;
  }
  return true;
}

export type DomainParseResult = { ok: true; domain: string } | AddressError;

/**
 * Parses and normalises a domain name as the domain part of an address is: trimmed, IDN to lowercase ASCII
 * (punycode), labels checked. A whole address, an address literal or an IP address is refused. Never throws.
 */
export function parseDomain(input: unknown): DomainParseResult {
  if (typeof input !== 'string') return missingDomain('no domain was given');
  const text = input.trim();
  if (text.length === 0) return missingDomain('the domain is empty');
  const hidden = CONTROL_OR_FORMAT.exec(text);
  if (hidden) return invalidDomain(`it contains ${describe(hidden[0])}, a control or invisible character`);
  if (text.includes('@')) return invalidDomain('give the domain alone, without a local part and "@"');
  if (text.startsWith('[') || isIPv4(text) || isIPv6(text)) {
    return invalidDomain('an IP address or address literal is not a domain');
  }
  const parsed = normaliseDomain(text, invalidDomain);
  return parsed.ok ? { ok: true, domain: parsed.domain } : parsed;
}

/** parseDomain for callers that must refuse bad input before any work: 400 INVALID_REQUEST naming `domain`. */
export function assertValidDomain(input: unknown): string {
  const parsed = parseDomain(input);
  if (!parsed.ok) throw new DomainError('INVALID_REQUEST', parsed.message, { field: 'domain' });
  return parsed.domain;
}

/** For callers that must refuse bad input before doing any work (`/verify/single`): 400 INVALID_EMAIL. */
export function assertValidAddress(input: unknown): ParsedAddress {
  const parsed = parseAddress(input);
  if (!parsed.ok) throw new DomainError('INVALID_EMAIL', parsed.message, { reason: parsed.reason });
  return parsed;
}

type Split = { ok: true; local: string; rawDomain: string } | AddressError;

function splitAddress(text: string): Split {
  if (text.startsWith('"')) {
    const end = endOfQuotedString(text);
    if (end < 0) return invalid('the quoted local part has no closing quote');
    if (text[end + 1] !== '@') return invalid('a quoted local part must be followed directly by "@"');
    const rawDomain = text.slice(end + 2);
    if (rawDomain.length === 0) return invalid('the domain part after "@" is empty');
    return { ok: true, local: text.slice(0, end + 1), rawDomain };
  }
  const at = text.indexOf('@');
  if (at < 0) return invalid('the address has no "@"');
  if (at === 0) return invalid('the local part before "@" is empty');
  const rawDomain = text.slice(at + 1);
  if (rawDomain.length === 0) return invalid('the domain part after "@" is empty');
  if (rawDomain.includes('@')) return invalid('the address has more than one "@" outside quotes');
  return { ok: true, local: text.slice(0, at), rawDomain };
}

/** Index of the closing quote of a quoted string starting at 0, or -1. */
function endOfQuotedString(text: string): number {
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') return i;
  }
  return -1;
}

/** Returns a description of the problem, or undefined when the local part is a dot-atom or quoted string. */
function checkLocalPart(local: string): string | undefined {
  if (local.startsWith('"')) return checkQuotedString(local);
  if (local.startsWith('.')) return 'the local part must not start with "."';
  if (local.endsWith('.')) return 'the local part must not end with "."';
  if (local.includes('..')) return 'the local part must not contain ".." outside quotes';
  for (let i = 0; i < local.length; i++) {
    const code = local.charCodeAt(i);
    if (code === 46) continue; // "."
    if (code < 128) {
      if (ATEXT_CODES[code] === 0)
        return `the local part contains ${describe(local[i]!)}, which is only allowed inside quotes`;
      continue;
    }
    // By code point: a surrogate pair is one character, a lone surrogate is one too (and forbidden).
    const c = String.fromCodePoint(local.codePointAt(i)!);
    if (FORBIDDEN_NON_ASCII.test(c)) return `the local part contains ${describe(c)}`;
    i += c.length - 1;
  }
  return undefined;
}

function checkQuotedString(local: string): string | undefined {
  // qtextSMTP and quoted-pairSMTP (RFC 5321 4.1.2) plus UTF-8 (RFC 6531): printable characters and space.
  const inner = [...local.slice(1, -1)];
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\') {
      const next = inner[i + 1];
      if (next === undefined) return 'the quoted local part ends with a lone "\\"';
      if (!isAscii(next) || next.charCodeAt(0) < 32 || next.charCodeAt(0) > 126) {
        return `the quoted local part escapes ${describe(next)}, which cannot be escaped`;
      }
      i++;
    } else if (isAscii(c)) {
      const code = c.charCodeAt(0);
      if (code < 32 || code > 126) return `the quoted local part contains ${describe(c)}`;
      if (c === '"') return 'the quoted local part contains an unescaped quote';
    } else if (FORBIDDEN_NON_ASCII.test(c)) {
      return `the quoted local part contains ${describe(c)}`;
    }
  }
  return undefined;
}

type DomainParse = { ok: true; domain: string; ipLiteral?: string } | AddressError;

/**
 * `raw` when it is a domain in its normalised form already, which normaliseDomain would return unchanged: at
 * most 253 characters, two labels or more, each of 1 to 63 of a-z, 0-9 and "-" (not first nor last), none
 * starting "xn--" (punycode, to be checked), the last one neither all digits nor starting "0x" (an IPv4
 * address to the host parser). Otherwise undefined: normaliseDomain decides.
 */
function plainDomain(raw: string): string | undefined {
  const length = raw.length;
  if (length > MAX_DOMAIN_LENGTH) return undefined;
  let labels = 0;
  let start = 0;
  let digitsOnly = true;
  for (let i = 0; i <= length; i++) {
    const code = i < length ? raw.charCodeAt(i) : 46;
    if (code === 46) {
      // "." or the end: a label ends.
      const size = i - start;
      if (size === 0 || size > MAX_LABEL_LENGTH) return undefined;
      if (raw.charCodeAt(start) === 45 || raw.charCodeAt(i - 1) === 45) return undefined;
      if (raw.startsWith('xn--', start)) return undefined;
      if (i === length && (digitsOnly || raw.startsWith('0x', start))) return undefined;
      labels += 1;
      start = i + 1;
      digitsOnly = true;
    } else if (code >= 48 && code <= 57) {
      // 0-9
    } else if ((code >= 97 && code <= 122) || code === 45) {
      digitsOnly = false; // a-z, "-"
    } else {
      return undefined;
    }
  }
  return labels >= 2 ? raw : undefined;
}

/**
 * Domains repeat throughout a list (a file of a million addresses may hold a few thousand domains), and
 * normalising one (IDN conversion, label checks) costs more than the rest of parsing, so the answers are
 * remembered: frozen, at most DOMAIN_MEMO_SIZE of them, forgotten all at once when that many were seen.
 */
const DOMAIN_MEMO_SIZE = 20_000;
const domainMemo = new Map<string, Readonly<DomainParse>>();

function normaliseDomainMemo(raw: string): Readonly<DomainParse> {
  let parsed = domainMemo.get(raw);
  if (parsed === undefined) {
    if (domainMemo.size >= DOMAIN_MEMO_SIZE) domainMemo.clear();
    parsed = Object.freeze(normaliseDomain(raw));
    // Keyed by a copy: `raw` is often cut out of a larger text (a file's parsed rows), and a kept slice would
    // keep that whole text alive for as long as the memo holds it.
    domainMemo.set(copyOf(raw), parsed);
  }
  return parsed;
}

/**
 * A string of its own with the same text: slicing a concatenation flattens it into a new string, so the result
 * refers to nothing but a copy one character longer than `text`.
 */
function copyOf(text: string): string {
  return ` ${text}`.slice(1);
}

/** @param fail how a problem is reported: as an invalid address by default, or as an invalid domain */
function normaliseDomain(raw: string, fail: (problem: string) => AddressError = invalid): DomainParse {
  if (raw.startsWith('[')) return normaliseAddressLiteral(raw);
  for (const c of raw) {
    // WHATWG host parsing (behind domainToASCII) would cut at "/" or "?" and accept "_"; reject such input first.
    if (isAscii(c) && !DOMAIN_INPUT_ASCII.test(c)) return fail(`the domain contains ${describe(c)}`);
    if (!isAscii(c) && FORBIDDEN_NON_ASCII.test(c)) return fail(`the domain contains ${describe(c)}`);
  }
  if (raw.endsWith('.')) return fail('the domain must not end with "."');
  const ascii = domainToASCII(raw);
  // Node.js 24 passes an "xn--" label that is not valid punycode through unchanged (Node.js 20 gave ""); such a
  // label does not decode either.
  const undecodable = (label: string) => label.startsWith('xn--') && domainToUnicode(label) === label;
  if (ascii === '' || ascii.split('.').some(undecodable)) {
    return fail(`the domain "${raw}" is not a valid internationalised domain name`);
  }
  if (ascii.length > MAX_DOMAIN_LENGTH) {
    return fail(`the domain is ${ascii.length} characters long; at most ${MAX_DOMAIN_LENGTH} are allowed`);
  }
  const labels = ascii.split('.');
  if (labels.length < 2) return fail(`the domain "${raw}" has no top-level domain`);
  for (const label of labels) {
    if (label.length === 0) return fail('the domain contains an empty label');
    if (label.length > MAX_LABEL_LENGTH) {
      return fail(`the domain label "${label}" is longer than ${MAX_LABEL_LENGTH} characters`);
    }
    if (!LDH_LABEL.test(label)) return fail(`the domain label "${label}" is not a valid host name label`);
  }
  // An all-numeric last label means a bare IP address; RFC 5321 requires those in brackets.
  if (/^[0-9]+$/.test(labels[labels.length - 1])) {
    return fail('an IP address as domain must be written as an address literal, e.g. [192.0.2.1]');
  }
  return { ok: true, domain: ascii };
}

function normaliseAddressLiteral(raw: string): DomainParse {
  if (!raw.endsWith(']')) return invalid('the address literal has no closing "]"');
  const inner = raw.slice(1, -1);
  if (isIPv4(inner)) return { ok: true, domain: `[${inner}]`, ipLiteral: inner };
  // RFC 5321 wants the "IPv6:" tag; an untagged IPv6 address is unambiguous and gets the tagged form.
  if (isIPv6(inner) && !inner.includes('%')) {
    const ip = inner.toLowerCase();
    return { ok: true, domain: `[ipv6:${ip}]`, ipLiteral: ip };
  }
  const tag = /^ipv6:/i;
  if (tag.test(inner)) {
    const ip = inner.replace(tag, '').toLowerCase();
    // Zone identifiers (%eth0) are local to a host and meaningless in an address.
    if (isIPv6(ip) && !ip.includes('%')) return { ok: true, domain: `[ipv6:${ip}]`, ipLiteral: ip };
    return invalid(`"${inner}" is not a valid IPv6 address literal`);
  }
  return invalid(`"${raw}" is not a valid address literal; use [IPv4] or [IPv6:address]`);
}

/** True when every character is printable ASCII, " " to "~". */
function isPrintableAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 32 || code > 126) return false;
  }
  return true;
}

function octets(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function isAscii(c: string): boolean {
  return c.charCodeAt(0) < 128;
}

function describe(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code > 32 && code < 127 ? `"${c}"` : `the character ${hex}`;
}

function invalid(message: string): AddressError {
  return { ok: false, reason: 'invalid_syntax', message: `Invalid email address: ${message}` };
}

function invalidDomain(message: string): AddressError {
  return { ok: false, reason: 'invalid_syntax', message: `Invalid domain: ${message}` };
}

function missingDomain(message: string): AddressError {
  return { ok: false, reason: 'missing_email', message: `Missing domain: ${message}` };
}

function missing(message: string): AddressError {
  return { ok: false, reason: 'missing_email', message: `Missing email address: ${message}` };
}
