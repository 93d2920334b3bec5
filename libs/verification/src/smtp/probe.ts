import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { TtlCache } from '../cache';
import type { Clock, Dialer, Random } from '../dependencies';
import type { MailHost } from '../dns';
import { refusedTarget } from '../reachability';
import { ProviderRules, type ProviderRule } from '../providers';
import { SmtpConnection, SmtpSessionError } from './connection';
import { LocalMxLimiter, type MxLimiter } from './limiter';
import { formatReply, type SmtpReply } from './reply';
import { startTls } from './tls';

export interface SmtpProbeOptions {
  port: number;
  heloName: string;
  mailFrom: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  maxConcurrencyPerMx: number;
  semaphoreTimeoutMs: number;
  /** Hosts tried, in preference order, before giving up (3 in the engine). */
  maxHosts: number;
  /** How long a conclusive catch-all verdict for a domain is reused. */
  catchAllTtlMs: number;
  /** SMTP_ALLOW_PRIVATE_NETWORKS: without it a non-public address is never dialled. */
  allowPrivateNetworks: boolean;
}

export interface SmtpProbeRequest {
  /** Normalised address to check. */
  email: string;
  /** Domain part as it goes on the wire (used for the catch-all address and its cache key). */
  domain: string;
  /** Mail hosts in preference order. */
  hosts: readonly MailHost[];
}

export type SmtpOutcome =
  | {
      kind: 'accepted';
      /** undefined when the catch-all probe was inconclusive or not run. */
      catchAll: boolean | undefined;
      response: string;
      conversed: true;
    }
  | { kind: 'rejected'; reason: 'mailbox_not_found' | 'mailbox_full'; response: string; conversed: true }
  | {
      kind: 'unknown';
      reason:
        | 'mailbox_full'
        | 'greylisted'
        | 'smtp_blocked'
        | 'smtp_unreachable'
        | 'smtp_timeout'
        | 'mx_only_verification_semaphore_timeout';
      response: string;
      message: string;
      /** Whether any SMTP conversation took place (a connection that got as far as a greeting). */
      conversed: boolean;
    };

/** A host that could not give an answer; the probe moves on to the next one. */
interface HostFailure {
  kind: 'next';
  cause: 'timeout' | 'unreachable';
  response: string;
  message: string;
  conversed: boolean;
}

/** Whether a session asks for STARTTLS when the server offers it, or stays in plain text throughout. */
type SessionTls = 'starttls-when-offered' | 'plain';

/** The server said 220 to STARTTLS but the handshake failed: the host is tried again in plain text. */
interface TlsFailure {
  kind: 'tls_failed';
  message: string;
}

type HostResult = { kind: 'final'; outcome: SmtpOutcome } | HostFailure;

/** What a session says once the host has greeted and answered EHLO (after STARTTLS when there was one). */
type Talk = (
  connection: SmtpConnection,
  hello: Hello,
  host: MailHost,
  rule: ProviderRule | undefined,
) => Promise<HostResult>;

interface Hello {
  reply: SmtpReply;
  /** EHLO keywords, upper case; empty after HELO. */
  extensions: string[];
}

/** The pieces of the probe that are not settings: how to connect, what time it is, randomness, the cap. */
export interface SmtpProbeDependencies {
  dial: Dialer;
  clock: Clock;
  random: Random;
  /** Per-MX-host cap; in-process by default, shared through Redis across verifiers when configured. */
  limiter?: MxLimiter;
  /** Provider rules; the shipped ones by default. */
  rules?: ProviderRules;
}

const QUIT_TIMEOUT_MS = 2000;
const PROBE_LOCAL_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * The RCPT probe. One short conversation per host, no DATA ever sent; hosts are
 * tried in preference order and a host that cannot answer hands over to the next.
 */
export class SmtpProber {
  private readonly limiter: MxLimiter;
  private readonly rules: ProviderRules;
  private readonly dial: Dialer;
  private readonly random: Random;
  private readonly catchAllVerdicts: TtlCache<string, boolean>;
  /** Addresses whose TLS handshake failed lately: they are spoken to in plain text straight away. */
  private readonly plainOnly: TtlCache<string, true>;

  constructor(
    private readonly options: SmtpProbeOptions,
    dependencies: SmtpProbeDependencies,
  ) {
    this.dial = dependencies.dial;
    this.random = dependencies.random;
    this.limiter = dependencies.limiter ?? new LocalMxLimiter();
    this.rules = dependencies.rules ?? new ProviderRules();
    this.catchAllVerdicts = new TtlCache(dependencies.clock);
    this.plainOnly = new TtlCache(dependencies.clock);
  }

  async probe(request: SmtpProbeRequest): Promise<SmtpOutcome> {
    return this.overHosts(
      request.hosts,
      (connection, hello, host, rule) => this.converse(connection, hello, host, request, rule),
      request.email,
    );
  }

  /**
   * Whether a domain accepts mail for any local part: RCPT of a random one in a session of its own, with the
   * same hosts, limiter, provider rules, STARTTLS and egress as an address probe. undefined when the question
   * stays open (no host answered, a policy refusal, a temporary refusal twice, or a provider rule that forbids
   * the probe).
   */
  async probeCatchAll(request: Omit<SmtpProbeRequest, 'email'>): Promise<boolean | undefined> {
    const cached = this.catchAllVerdicts.get(request.domain);
    if (cached !== undefined) return cached;
    // A rule of the preferred host that answers the question spares the connection.
    const first = request.hosts[0];
    const known = first ? ruleCatchAll(this.rules.match(first.exchange)) : 'probe';
    if (known !== 'probe') return known;
    const outcome = await this.overHosts(request.hosts, async (connection, _hello, host, rule) => {
      let catchAll = ruleCatchAll(rule);
      if (catchAll === 'probe') {
        const refused = beforeRcpt(await connection.command(this.mailFromCommand()), 'MAIL FROM', host);
        if (refused) return refused;
        catchAll = await this.catchAll(connection, request.domain);
      }
      return { kind: 'final', outcome: { kind: 'accepted', catchAll, response: '', conversed: true } };
    });
    return outcome.kind === 'accepted' ? outcome.catchAll : undefined;
  }

  /**
   * Hosts in preference order, each in a session under the per-MX cap, until one gives a final answer. The
   * recipient (the address asked about, if any) chooses the egress.
   */
  private async overHosts(hosts: readonly MailHost[], talk: Talk, recipient?: string): Promise<SmtpOutcome> {
    const failures: HostFailure[] = [];
    for (const host of hosts.slice(0, this.options.maxHosts)) {
      const rule = this.rules.match(host.exchange);
      const limit = rule?.maxConnections ?? this.options.maxConcurrencyPerMx;
      // DNS names are case-insensitive: one host is one key, however its MX record spells it.
      const slotKey = host.exchange.toLowerCase().replace(/\.$/, '');
      const release = await this.limiter.acquire(slotKey, limit, this.options.semaphoreTimeoutMs);
      if (!release) {
        return {
          kind: 'unknown',
          reason: 'mx_only_verification_semaphore_timeout',
          response: '',
          message: `no SMTP slot for ${host.exchange} within ${this.options.semaphoreTimeoutMs} ms; verified MX only`,
          conversed: failures.some((f) => f.conversed),
        };
      }
      let result: HostResult;
      try {
        result = await this.sessionWithFallback(host, rule, talk, recipient);
      } finally {
        release();
      }
      if (result.kind === 'final') return result.outcome;
      failures.push(result);
    }
    return summariseFailures(failures);
  }

  /** A session with STARTTLS when offered; after a failed handshake, a second one in plain text. */
  private async sessionWithFallback(
    host: MailHost,
    rule: ProviderRule | undefined,
    talk: Talk,
    recipient: string | undefined,
  ): Promise<HostResult> {
    const address = pickAddress(host);
    const tls = this.plainOnly.get(address) ? 'plain' : 'starttls-when-offered';
    const first = await this.session(host, address, rule, talk, tls, recipient);
    if (first.kind !== 'tls_failed') return first;
    this.plainOnly.set(address, true, this.options.catchAllTtlMs);
    const plain = await this.session(host, address, rule, talk, 'plain', recipient);
    if (plain.kind !== 'tls_failed') return plain;
    return { kind: 'next', cause: 'unreachable', response: '', message: plain.message, conversed: true };
  }

  private async session(
    host: MailHost,
    address: string,
    rule: ProviderRule | undefined,
    talk: Talk,
    tls: SessionTls,
    recipient: string | undefined,
  ): Promise<HostResult | TlsFailure> {
    let socket: Duplex;
    try {
      socket = await this.connect(host, address, recipient);
    } catch (error) {
      const timedOut = error instanceof SmtpSessionError && error.kind === 'timeout';
      return {
        kind: 'next',
        cause: timedOut ? 'timeout' : 'unreachable',
        response: '',
        message: `${host.exchange} (${address}): ${error instanceof Error ? error.message : String(error)}`,
        conversed: false,
      };
    }
    let connection = new SmtpConnection(socket, this.options.commandTimeoutMs);
    let greeted = false;
    try {
      const banner = await connection.readReply();
      greeted = true;
      let result: HostResult | undefined = beforeRcpt(banner, 'greeting', host);
      if (!result) {
        let hello = await this.hello(connection);
        if (
          tls === 'starttls-when-offered' &&
          hello.reply.code < 300 &&
          hello.extensions.includes('STARTTLS')
        ) {
          const answer = await connection.command('STARTTLS');
          // Any answer but 220 declines TLS, and the session goes on in plain text (RFC 3207 4).
          if (answer.code === 220) {
            let secure: Duplex;
            try {
              secure = await startTls(connection.detach(), host.exchange, this.options.commandTimeoutMs);
            } catch (error) {
              return {
                kind: 'tls_failed',
                message: `${host.exchange}: ${error instanceof Error ? error.message : String(error)}`,
              };
            }
            connection = new SmtpConnection(secure, this.options.commandTimeoutMs);
            // RFC 3207 4.2: everything learnt before TLS is forgotten, EHLO again.
            hello = await this.hello(connection);
          }
        }
        result = beforeRcpt(hello.reply, 'HELO', host) ?? (await talk(connection, hello, host, rule));
      }
      await this.quit(connection);
      return result;
    } catch (error) {
      if (!(error instanceof SmtpSessionError)) throw error;
      return {
        kind: 'next',
        cause: error.kind === 'timeout' ? 'timeout' : 'unreachable',
        response: '',
        message: `${host.exchange}: ${error.message}`,
        conversed: greeted,
      };
    } finally {
      connection.close();
    }
  }

  /** EHLO, or HELO when EHLO is refused. */
  private async hello(connection: SmtpConnection): Promise<Hello> {
    const ehlo = await connection.command(`EHLO ${this.options.heloName}`);
    if (ehlo.code >= 500)
      return { reply: await connection.command(`HELO ${this.options.heloName}`), extensions: [] };
    return { reply: ehlo, extensions: ehlo.lines.slice(1).map((line) => line.split(' ')[0]!.toUpperCase()) };
  }

  private async converse(
    connection: SmtpConnection,
    hello: Hello,
    host: MailHost,
    request: SmtpProbeRequest,
    rule: ProviderRule | undefined,
  ): Promise<HostResult> {
    // An internationalised mailbox can only be named to a server that announced SMTPUTF8 (RFC 6531).
    const needsUtf8 = /[^\x00-\x7f]/.test(request.email) && hello.extensions.includes('SMTPUTF8');
    const mail = await connection.command(`${this.mailFromCommand()}${needsUtf8 ? ' SMTPUTF8' : ''}`);
    const mailProblem = beforeRcpt(mail, 'MAIL FROM', host);
    if (mailProblem) return mailProblem;

    const rcpt = await connection.command(`RCPT TO:<${request.email}>`);
    const verdict = classifyRcpt(rcpt, host);
    if (verdict.kind !== 'accepted') return verdict;

    const known = ruleCatchAll(rule);
    const catchAll = known === 'probe' ? await this.catchAll(connection, request.domain) : known;
    return {
      kind: 'final',
      outcome: { kind: 'accepted', catchAll, response: formatReply(rcpt), conversed: true },
    };
  }

  private mailFromCommand(): string {
    return `MAIL FROM:<${this.options.mailFrom}>`;
  }

  /**
   * RCPT to an address nobody has: a server that accepts it accepts everything, so its 250 proves nothing. A
   * temporary refusal (452 too many recipients, a rate limit, greylisting of the unknown recipient) is asked
   * once more in a fresh transaction after RSET; a second one leaves the question open.
   */
  private async catchAll(connection: SmtpConnection, domain: string): Promise<boolean | undefined> {
    const cached = this.catchAllVerdicts.get(domain);
    if (cached !== undefined) return cached;
    const rcpt = `RCPT TO:<${this.randomLocalPart()}@${domain}>`;
    let reply: SmtpReply;
    try {
      reply = await connection.command(rcpt);
      if (isTemporary(reply)) {
        if ((await connection.command('RSET')).code !== 250) return undefined;
        if ((await connection.command(this.mailFromCommand())).code !== 250) return undefined;
        reply = await connection.command(rcpt);
      }
    } catch (error) {
      if (error instanceof SmtpSessionError) return undefined;
      throw error;
    }
    if (isTemporary(reply)) return undefined;
    const verdict = reply.code === 250 || reply.code === 251;
    this.catchAllVerdicts.set(domain, verdict, this.options.catchAllTtlMs);
    return verdict;
  }

  private async quit(connection: SmtpConnection): Promise<void> {
    try {
      await connection.command('QUIT', Math.min(this.options.commandTimeoutMs, QUIT_TIMEOUT_MS));
    } catch {
      // The verdict is already known; a server that hangs up instead of saying 221 changes nothing.
    }
  }

  private connect(host: MailHost, address: string, recipient: string | undefined): Promise<Duplex> {
    // The last line of the network rule (reachability.ts): whatever routing the caller passed, no dial
    // reaches a non-public address.
    const refusal = refusedTarget(address, this.options.allowPrivateNetworks);
    if (refusal) return Promise.reject(new Error(refusal));
    const controller = new AbortController();
    const timeoutMs = this.options.connectTimeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    return this.dial(
      { host: address, port: this.options.port, mxHost: host.exchange, recipient },
      controller.signal,
    )
      .catch((error: unknown) => {
        if (timedOut) throw new SmtpSessionError('timeout', `no connection within ${timeoutMs} ms`);
        throw error;
      })
      .finally(() => clearTimeout(timer));
  }

  private randomLocalPart(): string {
    let local = '';
    for (let i = 0; i < 20; i++) {
      local +=
        PROBE_LOCAL_ALPHABET[
          Math.floor(this.random() * PROBE_LOCAL_ALPHABET.length) % PROBE_LOCAL_ALPHABET.length
        ];
    }
    return local;
  }
}

/**
 * What a provider rule says of the catch-all question without a probe: a provider that accepts every recipient at
 * RCPT time is catch-all (its 250 is the domain's, not the mailbox's); one whose rule forbids the probe leaves
 * the question open; otherwise 'probe'.
 */
function ruleCatchAll(rule: ProviderRule | undefined): boolean | undefined | 'probe' {
  if (rule?.acceptsAnyRecipient) return true;
  if (rule?.catchAllProbe === false) return undefined;
  return 'probe';
}

function isTemporary(reply: SmtpReply): boolean {
  return reply.code >= 400 && reply.code < 500;
}

/** Prefer IPv4: most receiving hosts and most probe networks have it, far fewer have working IPv6. */
function pickAddress(host: MailHost): string {
  return host.addresses.find((a) => isIP(a) === 4) ?? host.addresses[0];
}

/** Replies before RCPT: success continues, 5xx is a policy refusal, anything else moves to the next host. */
function beforeRcpt(reply: SmtpReply, stage: string, host: MailHost): HostResult | undefined {
  const expected = stage === 'greeting' ? 220 : 250;
  if (reply.code === expected || (stage !== 'greeting' && reply.code >= 200 && reply.code < 300))
    return undefined;
  const response = formatReply(reply);
  if (reply.code >= 500) return blocked(response, host, stage);
  return {
    kind: 'next',
    cause: 'unreachable',
    response,
    message: `${host.exchange} is not available at ${stage}: ${response}`,
    conversed: true,
  };
}

/** Enhanced codes (RFC 3463) in the 5.1.x range that name the recipient address as the problem. */
const UNKNOWN_MAILBOX_ENHANCED = new Set(['5.1.0', '5.1.1', '5.1.2', '5.1.3', '5.1.6', '5.1.10']);

function classifyRcpt(reply: SmtpReply, host: MailHost): HostResult | { kind: 'accepted' } {
  const response = formatReply(reply);
  const { code, enhanced } = reply;
  const final = (outcome: SmtpOutcome): HostResult => ({ kind: 'final', outcome });
  if (code === 250 || code === 251) return { kind: 'accepted' };
  if (code === 421) {
    return {
      kind: 'next',
      cause: 'unreachable',
      response,
      message: `${host.exchange} closed the session: ${response}`,
      conversed: true,
    };
  }
  if (code >= 400 && code < 500) {
    if (code === 452 || enhanced === '4.2.2') {
      return final({
        kind: 'unknown',
        reason: 'mailbox_full',
        response,
        message: 'the mailbox is over quota for now',
        conversed: true,
      });
    }
    return final({
      kind: 'unknown',
      reason: 'greylisted',
      response,
      message: 'the server deferred the recipient; retry later',
      conversed: true,
    });
  }
  if (code >= 500) {
    // 5.7.x is a security or policy refusal of the probe (often sent as 550), not a statement about the mailbox.
    if (enhanced?.startsWith('5.7.')) return blocked(response, host);
    if (code === 552 || enhanced === '5.2.2')
      return final({ kind: 'rejected', reason: 'mailbox_full', response, conversed: true });
    if (
      code === 550 ||
      code === 551 ||
      code === 553 ||
      (enhanced && UNKNOWN_MAILBOX_ENHANCED.has(enhanced))
    ) {
      return final({ kind: 'rejected', reason: 'mailbox_not_found', response, conversed: true });
    }
    return blocked(response, host);
  }
  return {
    kind: 'next',
    cause: 'unreachable',
    response,
    message: `${host.exchange} gave an unexpected reply: ${response}`,
    conversed: true,
  };
}

/** A policy refusal: the address's fate is unknown (`smtp_blocked`), and no other host will say otherwise. */
function blocked(response: string, host: MailHost, stage?: string): HostResult {
  return {
    kind: 'final',
    outcome: {
      kind: 'unknown',
      reason: 'smtp_blocked',
      response,
      message: `${host.exchange} refused the probe${stage ? ` at ${stage}` : ''}: ${response}`,
      conversed: true,
    },
  };
}

function summariseFailures(failures: HostFailure[]): SmtpOutcome {
  const last = failures[failures.length - 1];
  const allTimedOut = failures.length > 0 && failures.every((f) => f.cause === 'timeout');
  return {
    kind: 'unknown',
    reason: allTimedOut ? 'smtp_timeout' : 'smtp_unreachable',
    response: [...failures].reverse().find((f) => f.response)?.response ?? '',
    message: last ? failures.map((f) => f.message).join('; ') : 'no mail host to connect to',
    conversed: failures.some((f) => f.conversed),
  };
}
