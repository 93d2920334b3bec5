import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { TtlCache } from '../cache';
import type { Clock, Dialer, Random } from '../dependencies';
import type { MailHost } from '../dns';
import { refusedTarget } from '../reachability';
import { SmtpConnection, SmtpSessionError } from './connection';
import { formatReply, type SmtpReply } from './reply';
import { KeyedSemaphore } from './semaphore';

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
      /** undefined when the catch-all probe was inconclusive. */
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

type HostResult = { kind: 'final'; outcome: SmtpOutcome } | HostFailure;

const QUIT_TIMEOUT_MS = 2000;
const PROBE_LOCAL_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * The RCPT probe. One short conversation per host, no DATA ever sent; hosts are
 * tried in preference order and a host that cannot answer hands over to the next.
 */
export class SmtpProber {
  private readonly semaphore: KeyedSemaphore;
  private readonly catchAllVerdicts: TtlCache<string, boolean>;

  constructor(
    private readonly options: SmtpProbeOptions,
    private readonly dial: Dialer,
    clock: Clock,
    private readonly random: Random,
  ) {
    this.semaphore = new KeyedSemaphore(options.maxConcurrencyPerMx);
    this.catchAllVerdicts = new TtlCache(clock);
  }

  async probe(request: SmtpProbeRequest): Promise<SmtpOutcome> {
    const failures: HostFailure[] = [];
    for (const host of request.hosts.slice(0, this.options.maxHosts)) {
      const release = await this.semaphore.acquire(host.exchange, this.options.semaphoreTimeoutMs);
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
        result = await this.session(host, request);
      } finally {
        release();
      }
      if (result.kind === 'final') return result.outcome;
      failures.push(result);
    }
    return summariseFailures(failures);
  }

  private async session(host: MailHost, request: SmtpProbeRequest): Promise<HostResult> {
    const address = pickAddress(host);
    let socket: Duplex;
    try {
      socket = await this.connect(address);
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
    const connection = new SmtpConnection(socket, this.options.commandTimeoutMs);
    let greeted = false;
    try {
      const banner = await connection.readReply();
      greeted = true;
      const result = await this.converse(connection, banner, host, request);
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

  private async converse(
    connection: SmtpConnection,
    banner: SmtpReply,
    host: MailHost,
    request: SmtpProbeRequest,
  ): Promise<HostResult> {
    const before = (reply: SmtpReply, stage: string): HostResult | undefined =>
      beforeRcpt(reply, stage, host);

    const bannerProblem = before(banner, 'greeting');
    if (bannerProblem) return bannerProblem;

    let hello = await connection.command(`EHLO ${this.options.heloName}`);
    let extensions: string[] = [];
    if (hello.code >= 500) hello = await connection.command(`HELO ${this.options.heloName}`);
    else extensions = hello.lines.slice(1).map((line) => line.split(' ')[0].toUpperCase());
    const helloProblem = before(hello, 'HELO');
    if (helloProblem) return helloProblem;

    // An internationalised mailbox can only be named to a server that announced SMTPUTF8 (RFC 6531).
    const needsUtf8 = /[^\x00-\x7f]/.test(request.email) && extensions.includes('SMTPUTF8');
    const mail = await connection.command(
      `MAIL FROM:<${this.options.mailFrom}>${needsUtf8 ? ' SMTPUTF8' : ''}`,
    );
    const mailProblem = before(mail, 'MAIL FROM');
    if (mailProblem) return mailProblem;

    const rcpt = await connection.command(`RCPT TO:<${request.email}>`);
    const verdict = classifyRcpt(rcpt, host);
    if (verdict.kind !== 'accepted') return verdict;

    const catchAll = await this.catchAll(connection, request.domain);
    return {
      kind: 'final',
      outcome: { kind: 'accepted', catchAll, response: formatReply(rcpt), conversed: true },
    };
  }

  /** RCPT to an address nobody has: a server that accepts it accepts everything, so its 250 proves nothing. */
  private async catchAll(connection: SmtpConnection, domain: string): Promise<boolean | undefined> {
    const cached = this.catchAllVerdicts.get(domain);
    if (cached !== undefined) return cached;
    let reply: SmtpReply;
    try {
      reply = await connection.command(`RCPT TO:<${this.randomLocalPart()}@${domain}>`);
    } catch (error) {
      if (error instanceof SmtpSessionError) return undefined;
      throw error;
    }
    // A temporary answer (greylisting the unknown recipient, rate limit) says nothing either way.
    if (reply.code >= 400 && reply.code < 500) return undefined;
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

  private connect(address: string): Promise<Duplex> {
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
    return this.dial({ host: address, port: this.options.port }, controller.signal)
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
