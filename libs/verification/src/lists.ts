import { DomainError } from '@emailverify/contracts';
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import { freeEmailDomains } from 'free-email-domains-typescript';
import roleLocalParts from 'role-based-email-addresses';
import { parseAddress } from './address';

// Loaded once per process. The disposable package rebuilds its Set on every call of its own predicate, so we
// keep the Set it hands out instead.
const DISPOSABLE_DOMAINS: ReadonlySet<string> = disposableEmailBlocklistSet();
const FREE_DOMAINS: ReadonlySet<string> = new Set(freeEmailDomains.map((d) => d.toLowerCase()));
const ROLE_LOCAL_PARTS: ReadonlySet<string> = new Set(roleLocalParts.map((r) => r.toLowerCase()));

/**
 * Mailbox providers most addresses belong to, most used first (ties in a typo suggestion go to the earlier
 * one). Curated here because the packages that ship such a list either fail to load under CommonJS or pair it
 * with a fuzzy matcher that turns ordinary company domains into suggestions (acme.com -> me.com).
 */
const POPULAR_DOMAINS: readonly string[] = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'icloud.com',
  'aol.com',
  'live.com',
  'msn.com',
  'googlemail.com',
  'protonmail.com',
  'proton.me',
  'yandex.ru',
  'yandex.com',
  'mail.ru',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  't-online.de',
  'qq.com',
  '163.com',
  '126.com',
  'naver.com',
  'comcast.net',
  'verizon.net',
  'att.net',
  'sbcglobal.net',
  'bellsouth.net',
  'charter.net',
  'cox.net',
  'earthlink.net',
  'optonline.net',
  'me.com',
  'mac.com',
  'ymail.com',
  'rocketmail.com',
  'hotmail.co.uk',
  'hotmail.fr',
  'hotmail.de',
  'hotmail.it',
  'hotmail.es',
  'live.co.uk',
  'live.fr',
  'outlook.fr',
  'outlook.de',
  'yahoo.co.uk',
  'yahoo.fr',
  'yahoo.de',
  'yahoo.es',
  'yahoo.it',
  'yahoo.ca',
  'yahoo.co.in',
  'yahoo.co.jp',
  'yahoo.com.br',
  'btinternet.com',
  'sky.com',
  'virginmedia.com',
  'orange.fr',
  'wanadoo.fr',
  'free.fr',
  'laposte.net',
  'libero.it',
  'rediffmail.com',
  'uol.com.br',
  'bol.com.br',
  'shaw.ca',
  'rogers.com',
  'sympatico.ca',
  'bigpond.com',
  'optusnet.com.au',
  'zoho.com',
  'fastmail.com',
  'tutanota.com',
  'hey.com',
];
const POPULAR_SET: ReadonlySet<string> = new Set(POPULAR_DOMAINS);

/**
 * Whether the (ASCII, lowercase) domain or one of its parent domains is a known disposable provider; these
 * services hand out subdomains as freely as addresses.
 */
export function isDisposableDomain(domain: string): boolean {
  let candidate = domain.trim().toLowerCase();
  while (candidate.includes('.')) {
    if (DISPOSABLE_DOMAINS.has(candidate)) return true;
    candidate = candidate.slice(candidate.indexOf('.') + 1);
  }
  return false;
}

export function isFreeProvider(domain: string): boolean {
  return FREE_DOMAINS.has(domain.toLowerCase());
}

/** A shared mailbox (sales@, postmaster@) rather than a person; sub-address tags (`info+x`) do not hide it. */
export function isRoleLocalPart(local: string): boolean {
  const base = local.toLowerCase().split('+', 1)[0];
  return ROLE_LOCAL_PARTS.has(base);
}

/**
 * A popular domain the given one is probably a typo of, or '' when there is none. Conservative on purpose:
 * a wrong suggestion on a real company domain is worse than none.
 */
export function suggestDomain(domain: string): string {
  const d = domain.toLowerCase();
  if (POPULAR_SET.has(d) || FREE_DOMAINS.has(d) || d.startsWith('[')) return '';
  // One edit (typo, transposition) for ordinary lengths; two only where the name is long enough that two
  // edits still leave it unmistakable.
  const allowed = d.length >= 12 ? 2 : d.length >= 6 ? 1 : 0;
  if (allowed === 0) return '';
  const label = d.slice(0, d.indexOf('.'));
  let best = '';
  let bestDistance = Infinity;
  for (const candidate of POPULAR_DOMAINS) {
    if (Math.abs(candidate.length - d.length) > allowed) continue;
    const candidateLabel = candidate.slice(0, candidate.indexOf('.'));
    // Short names sit close to many real domains (mx.com vs me.com): for them only the suffix may be mistyped.
    if (candidateLabel.length < 4 && candidateLabel !== label) continue;
    const distance = editDistance(d, candidate, allowed);
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transposition, so gmial -> gmail is one edit).
 * With a `limit`, only the cells within `limit` of the diagonal are worked out (a path through any other costs
 * more than the limit), and it gives up once every path exceeds it: the result is exact when it is within the
 * limit, and above the limit otherwise. Three rows, reused, whatever the lengths.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  const n = a.length;
  const m = b.length;
  // No distance exceeds the longer length, so the band never needs to be wider.
  const k = Math.min(limit, Math.max(n, m));
  if (Math.abs(n - m) > k) return k + 1;
  const beyond = k + 1;
  let prevPrev = new Int32Array(m + 1).fill(beyond);
  let prev = new Int32Array(m + 1).fill(beyond);
  let row = new Int32Array(m + 1);
  for (let j = 0; j <= Math.min(m, k); j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    row.fill(beyond);
    if (i <= k) row[0] = i;
    const from = Math.max(1, i - k);
    const to = Math.min(m, i + k);
    let rowMin = i <= k ? i : beyond;
    for (let j = from; j <= to; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        value = Math.min(value, prevPrev[j - 2]! + 1);
      }
      row[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > k) return rowMin;
    const spare = prevPrev;
    prevPrev = prev;
    prev = row;
    row = spare;
  }
  return prev[m]!;
}

export interface DisposableCheck {
  /** Normalised and lowercased, as `/verify/disposable` returns it. */
  email: string;
  /** ASCII (punycode) domain. */
  domain: string;
  isDisposable: boolean;
}

/**
 * The free, in-process check behind `/verify/disposable`: syntax and the disposable list, nothing on the
 * network. Throws DomainError INVALID_EMAIL on bad syntax.
 */
export function checkDisposable(email: unknown): DisposableCheck {
  const parsed = parseAddress(email);
  if (!parsed.ok) throw new DomainError('INVALID_EMAIL', parsed.message, { reason: parsed.reason });
  return {
    email: parsed.email.toLowerCase(),
    domain: parsed.domain,
    isDisposable: !parsed.ipLiteral && isDisposableDomain(parsed.domain),
  };
}
