import {
  STATUS_PRECEDENCE,
  type DomainReport,
  type DomainReputation,
  type Reason,
  type VerificationResult,
  type VerificationStatus,
} from '@emailverify/contracts';
import { isIPv4 } from 'node:net';
import { parseAddress, parseNormalised, type AddressError, type ParsedAddress } from './address';
import type { VerificationDependencies } from './dependencies';
import { type Entry, TtlCache } from './cache';
import { DomainFactsLookup, type DomainFacts, type MailHost } from './dns';
import { DomainReporter } from './domain-report';
import { ReputationChecker, type ReputationCheck } from './dnsbl';
import { ExtrasLookup, type GravatarInfo, NO_GRAVATAR } from './extras';
import { isDisposableDomain, isFreeProvider, isRoleLocalPart, suggestDomain } from './lists';
import { createDefaultDependencies } from './node-dependencies';
import { DEFAULT_TUNING, type VerificationOptions } from './options';
import { ProviderRules } from './providers';
import { publicRouting } from './reachability';
import { observedResolver, type VerificationObserver } from './observer';
import { SmtpProber, type SmtpOutcome } from './smtp/probe';

export interface VerifyOptions {
  /** Run the live RCPT probe. Without it no SMTP connection is made at all. */
  checkSmtp: boolean;
  /**
   * Look up Gravatar (per address) and the domain's age (RDAP, per domain) for a deliverable address: only where
   * the reply shows `hasGravatar`, `gravatarUrl` and `domainAge` (docs/lookups.md). Each Gravatar request tells a
   * third party about the address, so by default none is made and the fields stay at false, '' and 0.
   */
  enrich?: boolean;
}

/** How addExtras works through a list. */
export interface AddExtrasOptions {
  /** Results looked up at the same time; default 10. */
  concurrency?: number;
}

export interface VerifyManyOptions {
  /** Addresses verified at the same time; default 10. */
  concurrency?: number;
  /**
   * The addresses are normalised forms that parseAddress produced (a file-job chunk's): they are split, not
   * parsed again (parseNormalised).
   */
  normalised?: boolean;
}

/** Score by status; `valid` depends on whether SMTP confirmed the mailbox. */
export const STATUS_SCORES: Readonly<Record<Exclude<VerificationStatus, 'valid'>, number>> & {
  validSmtp: number;
  validMxOnly: number;
} = {
  validSmtp: 0.99,
  validMxOnly: 0.9,
  catchall: 0.7,
  role: 0.6,
  unknown: 0.5,
  risky: 0.3,
  disposable: 0.3,
  invalid: 0.1,
};

export function scoreFor(status: VerificationStatus, smtpConfirmed: boolean): number {
  if (status === 'valid') return smtpConfirmed ? STATUS_SCORES.validSmtp : STATUS_SCORES.validMxOnly;
  return STATUS_SCORES[status];
}

export interface Finding {
  status: VerificationStatus;
  reason: Reason;
}

/** The finding whose status ranks highest in STATUS_PRECEDENCE decides the result. */
export function decide(findings: readonly Finding[]): Finding {
  if (findings.length === 0) throw new Error('decide() needs at least one finding');
  return findings.reduce((best, f) =>
    STATUS_PRECEDENCE.indexOf(f.status) < STATUS_PRECEDENCE.indexOf(best.status) ? f : best,
  );
}

/** parseAddress, or parseNormalised for addresses already in normalised form. */
type Parse = (email: string) => ReturnType<typeof parseAddress>;

const NO_REPUTATION: DomainReputation = { mxIp: '', isListed: false, blacklists: [], checked: false };

/** What the lists say about a domain: the same for every address on it. */
interface DomainListFlags {
  isDisposable: boolean;
  isFree: boolean;
  domainSuggestion: string;
}

/** An address literal is on no list and suggests nothing. */
const LITERAL_FLAGS: DomainListFlags = { isDisposable: false, isFree: false, domainSuggestion: '' };

/**
 * What an MX-only verdict takes from the caches about a domain: its facts (public hosts only), list flags and
 * blocklist answers. With the local part (role) they decide the result; an enriched one adds the address's
 * Gravatar answer and the domain's registration time, cached apart (ExtrasLookup).
 */
type DomainAnswers =
  | {
      facts: Exclude<DomainFacts, { kind: 'deliverable' }>;
      flags: DomainListFlags;
    }
  | {
      facts: Extract<DomainFacts, { kind: 'deliverable' }>;
      flags: DomainListFlags;
      reputation: ReputationCheck;
    };

/**
 * The verification pipeline for one address at a time (its steps: docs/design.md, "Verifying one address").
 * Framework-free: every network access goes through the injected dependencies. `verify` never throws;
 * failures become results.
 */
export class VerificationEngine {
  private readonly deps: VerificationDependencies;
  private readonly domainFacts: DomainFactsLookup;
  private readonly reputation: ReputationChecker;
  private readonly prober: SmtpProber;
  private readonly extras: ExtrasLookup;
  private readonly domainReporter: DomainReporter;
  private readonly allowPrivateNetworks: boolean;
  /** The lists' flags per domain, worked out once per domain (the typo suggestion is most of an address's CPU). */
  private readonly listFlags: TtlCache<string, DomainListFlags>;
  /** The answers about each domain that MX-only verdicts take from the caches, together (answersOf). */
  private readonly domainAnswers: TtlCache<string, DomainAnswers>;
  private readonly cacheTtlMs: number;
  /** mxIpOf's answers, kept as long as the (cached) facts they were worked out from. */
  private readonly mxIps = new WeakMap<DomainFacts, string>();

  constructor(
    options: VerificationOptions,
    dependencies?: Partial<VerificationDependencies>,
    private readonly observer: VerificationObserver = {},
  ) {
    // Only the missing pieces are built, so a test that injects everything never creates a real resolver.
    const given = dependencies ?? {};
    this.deps =
      given.resolver && given.dial && given.fetch && given.clock && given.random
        ? {
            resolver: given.resolver,
            dial: given.dial,
            fetch: given.fetch,
            clock: given.clock,
            random: given.random,
          }
        : { ...createDefaultDependencies(options), ...given };
    this.allowPrivateNetworks = options.smtpAllowPrivateNetworks;
    const cacheTtlMs = options.domainCacheTtlMs ?? DEFAULT_TUNING.domainCacheTtlMs;
    const { clock } = this.deps;
    this.cacheTtlMs = cacheTtlMs;
    this.listFlags = new TtlCache(clock);
    this.domainAnswers = new TtlCache(clock);
    const resolver = observedResolver(this.deps.resolver, observer);
    this.domainFacts = new DomainFactsLookup(resolver, clock, cacheTtlMs);
    this.reputation = new ReputationChecker(
      resolver,
      clock,
      { ipZones: options.dnsblIpZones, domainZones: options.dnsblDomainZones },
      cacheTtlMs,
    );
    this.prober = new SmtpProber(
      {
        port: options.smtpPort,
        heloName: options.smtpHeloName,
        mailFrom: options.smtpMailFrom,
        connectTimeoutMs: options.smtpConnectTimeoutMs,
        commandTimeoutMs: options.smtpCommandTimeoutMs,
        maxConcurrencyPerMx: options.smtpMaxConcurrencyPerMx,
        semaphoreTimeoutMs: options.smtpSemaphoreTimeoutMs,
        maxHosts: options.smtpMaxHosts ?? DEFAULT_TUNING.smtpMaxHosts,
        catchAllTtlMs: cacheTtlMs,
        allowPrivateNetworks: options.smtpAllowPrivateNetworks,
      },
      {
        dial: this.deps.dial,
        clock,
        random: this.deps.random,
        limiter: given.limiter,
        rules: new ProviderRules(options.smtpProviderRules ?? []),
      },
    );
    this.extras = new ExtrasLookup(
      {
        gravatarBaseUrl: options.gravatarBaseUrl,
        rdapBaseUrl: options.rdapBaseUrl,
        httpTimeoutMs: options.httpTimeoutMs ?? DEFAULT_TUNING.httpTimeoutMs,
        cacheTtlMs,
      },
      this.deps.fetch,
      clock,
    );
    this.domainReporter = new DomainReporter({
      resolver,
      domainFacts: this.domainFacts,
      reputation: this.reputation,
      prober: this.prober,
      extras: this.extras,
      clock,
      allowPrivateNetworks: this.allowPrivateNetworks,
    });
  }

  /**
   * The report of a domain as a caller gave it (domain-report.ts), from the same lookups and caches as address
   * verification. Throws DomainError INVALID_REQUEST when the input is not a domain name.
   */
  verifyDomain(domain: string, options: VerifyOptions): Promise<DomainReport> {
    return this.domainReporter.report(domain, options);
  }

  /**
   * Calls `listener` with each domain's facts (MX hosts and their addresses, or why it takes no mail) once this
   * engine has found them in the DNS, with how long they may be kept: what other engines of the installation can
   * learn (learnDomainFacts) instead of asking again. Facts are what the DNS said, before the private-network
   * rule, which every engine applies to whatever it uses. One listener; a second replaces it.
   */
  shareDomainFacts(listener: (domain: string, facts: DomainFacts, ttlMs: number) => void): void {
    this.domainFacts.onFound(listener);
  }

  /**
   * Takes a domain's facts that another engine found (shareDomainFacts), unless this one has the domain's
   * already; returns whether it took them. `domain` is the ASCII, lower-case form addresses are parsed to.
   */
  learnDomainFacts(domain: string, facts: DomainFacts, ttlMs: number): boolean {
    return this.domainFacts.learn(domain, facts, ttlMs);
  }

  verify(email: string, options: VerifyOptions): Promise<VerificationResult> {
    return this.timed(email, options, parseAddress);
  }

  /**
   * As verify, for an address that is a normalised form parseAddress produced (a file-job chunk's): it is split,
   * not parsed again (parseNormalised).
   */
  verifyNormalised(email: string, options: VerifyOptions): Promise<VerificationResult> {
    return this.timed(email, options, parseNormalised);
  }

  /**
   * Verifies a list with at most `concurrency` addresses in flight; results come back in input order. An address
   * whose every answer is in the caches already (its domain's facts, blocklist answers and age, and no SMTP probe
   * or per-address lookup to make) is settled at once, without the asynchronous steps (cachedResult): in a large
   * list most addresses are on domains verified a moment ago.
   */
  async verifyMany(
    emails: readonly string[],
    options: VerifyOptions,
    { concurrency = 10, normalised = false }: VerifyManyOptions = {},
  ): Promise<VerificationResult[]> {
    const parse: Parse = normalised ? parseNormalised : parseAddress;
    const results = new Array<VerificationResult>(emails.length);
    const waiting: number[] = [];
    for (let i = 0; i < emails.length; i++) {
      const known = this.cachedResult(emails[i]!, options, parse);
      if (known) results[i] = known;
      else waiting.push(i);
    }
    await eachAtMost(concurrency, waiting, async (index) => {
      results[index] = await this.timed(emails[index]!, options, parse);
    });
    return results;
  }

  /**
   * Results verified without enrichment (from the result cache: a file job's or a bulk request's) with the
   * Gravatar and domain-age fields looked up now, as `verify` with `enrich` looks them up: only for an address
   * whose domain takes mail, through the same caches. The others come back as they are; nothing else changes.
   */
  async addExtras(
    results: readonly VerificationResult[],
    { concurrency = 10 }: AddExtrasOptions = {},
  ): Promise<VerificationResult[]> {
    const out = [...results];
    const waiting = results.flatMap((r, i) => (r.validMx ? [i] : []));
    await eachAtMost(concurrency, waiting, async (index) => {
      const r = results[index]!;
      const [gravatar, domainAge] = await Promise.all([
        this.extras.gravatar(r.email),
        // An address literal's domain is its bracketed IP, which has no registration: 0 as verify gives.
        this.extras.domainAge(r.domain),
      ]);
      out[index] = { ...r, hasGravatar: gravatar.hasGravatar, gravatarUrl: gravatar.gravatarUrl, domainAge };
    });
    return out;
  }

  private async timed(email: string, options: VerifyOptions, parse: Parse): Promise<VerificationResult> {
    const started = this.deps.clock.now();
    let result: VerificationResult;
    try {
      result = await this.run(email, options, parse);
    } catch (error) {
      // A defect or an unexpected failure of a dependency: report it as retryable rather than lose the item.
      result = {
        ...fallbackResult(typeof email === 'string' ? email.trim() : '', ''),
        errorMessage: `verification failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    result.responseTime = Math.max(0, Math.round(this.deps.clock.now() - started));
    return result;
  }

  private async run(email: string, options: VerifyOptions, parse: Parse): Promise<VerificationResult> {
    const parsed = parse(email);
    if (!parsed.ok) return syntaxFailure(email, parsed);
    const literal = parsed.ipLiteral !== undefined;
    // Only public mail hosts are kept (unless allowed), before anything can connect to one.
    const facts = publicRouting(
      literal ? literalFacts(parsed) : await this.domainFacts.lookup(parsed.domain),
      this.allowPrivateNetworks,
    );
    const result = this.startResult(parsed, literal);
    if (facts.kind !== 'deliverable') return undeliverable(result, facts);

    // A disposable domain stays `disposable` whatever the mailbox says, so probing it would only cost time
    // and load on the provider's servers.
    const probe = options.checkSmtp && !result.isDisposable;
    const enrich = options.enrich === true;
    const [reputation, smtp, gravatar, domainAge] = await Promise.all([
      this.checkReputation(literal ? undefined : parsed.domain, this.mxIpOf(facts)),
      probe ? this.probeSmtp(parsed.email, parsed.domain, facts.hosts) : undefined,
      enrich ? this.extras.gravatar(parsed.email) : NO_GRAVATAR,
      enrich && !literal ? this.extras.domainAge(parsed.domain) : 0,
    ]);
    return this.deliverable(result, facts, reputation, smtp, gravatar, domainAge);
  }

  /**
   * What `run` gives for an MX-only verification when every answer it needs is in the caches already, without
   * waiting for anything; undefined when something must still be asked (or probed). The same steps on the same
   * answers, so the same result.
   */
  private cachedResult(email: string, options: VerifyOptions, parse: Parse): VerificationResult | undefined {
    if (options.checkSmtp) return undefined;
    try {
      const parsed = parse(email);
      if (!parsed.ok) return syntaxFailure(email, parsed);
      const answers =
        parsed.ipLiteral !== undefined ? this.cachedAnswers(parsed, true)?.value : this.answersOf(parsed);
      if (!answers) return undefined;
      const result = this.resultWith(parsed, answers.flags);
      if (answers.facts.kind !== 'deliverable') return undeliverable(result, answers.facts);
      if (!('reputation' in answers)) return undefined;
      if (options.enrich !== true) {
        return this.deliverable(result, answers.facts, answers.reputation, undefined, NO_GRAVATAR, 0);
      }
      const gravatar = this.extras.cachedGravatar(parsed.email);
      // An address literal's domain has no registration: known without asking.
      const registered = this.extras.cachedRegistration(parsed.domain);
      if (!gravatar || !registered) return undefined;
      const domainAge = this.extras.ageOf(registered.value);
      return this.deliverable(result, answers.facts, answers.reputation, undefined, gravatar, domainAge);
    } catch {
      // The asynchronous path reports whatever failed here.
      return undefined;
    }
  }

  /**
   * A domain's cached answers, put together once per domain and kept until the first of them expires: most
   * addresses of a large list are on domains verified a moment ago, and each would otherwise look every answer
   * up again.
   */
  private answersOf(parsed: ParsedAddress): DomainAnswers | undefined {
    const known = this.domainAnswers.get(parsed.domain);
    if (known) return known;
    const found = this.cachedAnswers(parsed, false);
    if (!found) return undefined;
    this.domainAnswers.setUntil(parsed.domain, found.value, found.expiresAt);
    return found.value;
  }

  /** The cached answers about an address's domain that an MX-only verdict needs; undefined when one is missing. */
  private cachedAnswers(parsed: ParsedAddress, literal: boolean): Entry<DomainAnswers> | undefined {
    const known: Entry<DomainFacts> | undefined = literal
      ? { value: literalFacts(parsed), expiresAt: Infinity }
      : this.domainFacts.cached(parsed.domain);
    if (!known) return undefined;
    const facts = publicRouting(known.value, this.allowPrivateNetworks);
    const flags = literal ? LITERAL_FLAGS : this.listFlagsOf(parsed.domain);
    if (facts.kind !== 'deliverable') return { value: { facts, flags }, expiresAt: known.expiresAt };
    const reputation = this.reputation.cached(literal ? undefined : parsed.domain, this.mxIpOf(facts));
    if (!reputation) return undefined;
    return {
      value: { facts, flags, reputation: reputation.value },
      expiresAt: Math.min(known.expiresAt, reputation.expiresAt),
    };
  }

  /** A well-formed address's result before its domain's facts are known: its list flags and role. */
  private startResult(parsed: ParsedAddress, literal: boolean): VerificationResult {
    return this.resultWith(parsed, literal ? LITERAL_FLAGS : this.listFlagsOf(parsed.domain));
  }

  /** As startResult, with the domain's list flags known. */
  private resultWith(parsed: ParsedAddress, flags: DomainListFlags): VerificationResult {
    const result = fallbackResult(parsed.email, parsed.domain);
    result.validFormat = true;
    result.isDisposable = flags.isDisposable;
    result.isFree = flags.isFree;
    result.domainSuggestion = flags.domainSuggestion;
    result.isRole = isRoleLocalPart(unquote(parsed.local));
    return result;
  }

  /** The verdict of an address whose domain can receive mail, from what was found about it. */
  private deliverable(
    result: VerificationResult,
    facts: Extract<DomainFacts, { kind: 'deliverable' }>,
    reputation: ReputationCheck,
    smtp: SmtpOutcome | undefined,
    gravatar: GravatarInfo,
    domainAge: number,
  ): VerificationResult {
    result.validDomain = true;
    result.validMx = true;
    result.mxRecords = facts.mxRecords;
    result.domainReputation = reputation.reputation;
    result.hasGravatar = gravatar.hasGravatar;
    result.gravatarUrl = gravatar.gravatarUrl;
    result.domainAge = domainAge;

    const findings: Finding[] = [];
    if (result.isDisposable) findings.push({ status: 'disposable', reason: 'disposable_domain' });
    if (reputation.domainListed) findings.push({ status: 'risky', reason: 'domain_listed' });
    if (result.isRole) findings.push({ status: 'role', reason: 'role_account' });
    const errorMessage = smtp ? this.applySmtp(result, smtp, findings) : '';
    findings.push({ status: 'valid', reason: result.smtpValid ? 'accepted' : 'mx_found' });
    result.isDeliverable = smtp === undefined || smtp.kind === 'accepted';
    return finish(result, decide(findings), errorMessage);
  }

  /** The first MX host's IPv4 address (the one blocklists are asked about), once per facts object. */
  private mxIpOf(facts: Extract<DomainFacts, { kind: 'deliverable' }>): string {
    let ip = this.mxIps.get(facts);
    if (ip === undefined) {
      ip = firstIpv4(facts.hosts);
      this.mxIps.set(facts, ip);
    }
    return ip;
  }

  private listFlagsOf(domain: string): DomainListFlags {
    let flags = this.listFlags.get(domain);
    if (!flags) {
      flags = {
        isDisposable: isDisposableDomain(domain),
        isFree: isFreeProvider(domain),
        domainSuggestion: suggestDomain(domain),
      };
      this.listFlags.set(domain, flags, this.cacheTtlMs);
    }
    return flags;
  }

  private applySmtp(result: VerificationResult, smtp: SmtpOutcome, findings: Finding[]): string {
    result.smtpCheck = smtp.conversed;
    result.smtpResponse = smtp.response;
    switch (smtp.kind) {
      case 'accepted':
        result.smtpValid = true;
        result.isCatchall = smtp.catchAll === true;
        if (result.isCatchall) findings.push({ status: 'catchall', reason: 'catch_all' });
        return '';
      case 'rejected':
        findings.push({ status: 'invalid', reason: smtp.reason });
        return `the mail server rejected the address: ${smtp.response}`;
      case 'unknown':
        findings.push({ status: 'unknown', reason: smtp.reason });
        return smtp.message;
    }
  }

  /** The SMTP probe, timed for the observer. */
  private async probeSmtp(email: string, domain: string, hosts: readonly MailHost[]): Promise<SmtpOutcome> {
    const started = performance.now();
    const outcome = await this.prober.probe({ email, domain, hosts });
    this.observer.smtpProbe?.(
      outcome.kind,
      outcome.kind === 'accepted' ? 'none' : outcome.reason,
      (performance.now() - started) / 1000,
    );
    return outcome;
  }

  private async checkReputation(domain: string | undefined, mxIp: string): Promise<ReputationCheck> {
    try {
      return await this.reputation.check(domain, mxIp);
    } catch {
      // Blocklists are advisory: their failure must not fail the verification.
      return { reputation: { ...NO_REPUTATION, mxIp }, domainListed: false };
    }
  }
}

/**
 * The fallback result of an address: unknown `verification_failed` (free, and worth retrying), every other field
 * at its nothing-found value. What an address gets when it could not be verified (an unexpected failure here, a
 * file-job chunk given up after every delivery, a chunk answered as failed), and what every result of the
 * engine starts from.
 * @param domain the domain shown; by default what follows the address's last "@", lower-cased
 */
export function fallbackResult(email: string, domain = domainOf(email)): VerificationResult {
  return {
    email,
    status: 'unknown',
    reason: 'verification_failed',
    score: scoreFor('unknown', false),
    isDeliverable: false,
    isDisposable: false,
    isCatchall: false,
    isRole: false,
    isFree: false,
    hasGravatar: false,
    gravatarUrl: '',
    domain,
    domainAge: 0,
    mxRecords: [],
    domainReputation: { ...NO_REPUTATION, blacklists: [] },
    smtpCheck: false,
    smtpResponse: '',
    errorMessage: '',
    domainSuggestion: '',
    responseTime: 0,
    validFormat: false,
    validDomain: false,
    validMx: false,
    smtpValid: false,
  };
}

/** Settles a result on the finding that decides it; its score counts an SMTP confirmation (`smtpValid`). */
function finish(result: VerificationResult, finding: Finding, errorMessage: string): VerificationResult {
  result.status = finding.status;
  result.reason = finding.reason;
  result.score = scoreFor(finding.status, result.smtpValid);
  // A message explains only outcomes that need one; a deliverable address carries none.
  result.errorMessage = finding.status === 'invalid' || finding.status === 'unknown' ? errorMessage : '';
  return result;
}

/**
 * The result of input that is not an address at all (`missing_email` when empty, else `invalid_syntax`):
 * invalid and free, known without any network work.
 * @param text the input, trimmed
 */
export function syntaxFailureResult(
  text: string,
  reason: AddressError['reason'],
  errorMessage = '',
): VerificationResult {
  return {
    ...fallbackResult(text),
    status: 'invalid',
    reason,
    score: scoreFor('invalid', false),
    errorMessage,
  };
}

/** The result of input that parse() refused (the sandbox's answer to malformed input too). */
export function syntaxFailure(email: unknown, parsed: AddressError): VerificationResult {
  return syntaxFailureResult(typeof email === 'string' ? email.trim() : '', parsed.reason, parsed.message);
}

/** The verdict of an address whose domain cannot receive mail (or whose DNS failed), from its domain's facts. */
function undeliverable(
  result: VerificationResult,
  facts: Exclude<DomainFacts, { kind: 'deliverable' }>,
): VerificationResult {
  if (facts.kind === 'dns_error') {
    // The list flags need no network, so they still rank: a disposable domain stays disposable.
    const findings: Finding[] = [{ status: 'unknown', reason: 'dns_error' }];
    if (result.isDisposable) findings.push({ status: 'disposable', reason: 'disposable_domain' });
    return finish(result, decide(findings), facts.message);
  }
  result.validDomain = facts.reason !== 'domain_not_found';
  result.mxRecords = facts.mxRecords;
  return finish(result, { status: 'invalid', reason: facts.reason }, facts.message);
}

function domainOf(text: string): string {
  const at = text.lastIndexOf('@');
  return at >= 0 ? text.slice(at + 1).toLowerCase() : '';
}

/** An address literal names its mail host directly: no DNS, the IP is the only host. */
function literalFacts(parsed: ParsedAddress): DomainFacts {
  const ip = parsed.ipLiteral ?? '';
  return {
    kind: 'deliverable',
    mxRecords: [],
    hosts: [{ exchange: ip, priority: 0, addresses: [ip] }],
    implicitMx: true,
  };
}

/** Runs `work` on each item, at most `concurrency` at a time (at least one), and waits for them all. */
async function eachAtMost<T>(
  concurrency: number,
  items: readonly T[],
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  const workers = Math.max(1, Math.min(Math.floor(concurrency), items.length));
  if (items.length > 0) await Promise.all(Array.from({ length: workers }, worker));
}

function firstIpv4(hosts: readonly MailHost[]): string {
  for (const host of hosts) {
    const v4 = host.addresses.find((a) => isIPv4(a));
    if (v4) return v4;
  }
  return '';
}

/** `"info"` names the same mailbox as `info`; the role list is written without quotes. */
function unquote(local: string): string {
  return local.startsWith('"') ? local.slice(1, -1).replace(/\\(.)/g, '$1') : local;
}
