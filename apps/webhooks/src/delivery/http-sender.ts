import { Inject, Injectable } from '@nestjs/common';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIpLiteral } from '@emailverify/net-policy';
import { type Dispatcher, Pool } from 'undici';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from '../config';
import { connectPlan, type ResolvedAddress } from './address-order';

type DispatchController = Dispatcher.DispatchController;

/** What one POST came to: the receiver's status (null when none came), a short body excerpt, or an error. */
export interface SendResult {
  status: number | null;
  /** The Retry-After header of a 429 or 503 reply (other replies' headers are not read). */
  retryAfter: string | undefined;
  /** The first KEEP_BODY_BYTES of the reply body. */
  body: string | null;
  /** Why no usable reply came (refused target, connection or TLS error, time-out); null when one came. */
  error: string | null;
  durationMs: number;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /**
   * Connections kept to one target (host, port and checked address). The dispatcher's concurrency bounds the
   * exchanges in flight anyway; a lower limit here would make attempts wait for a connection while their slots
   * sit idle, as when many webhooks of one account share a receiver.
   */
  maxSocketsPerTarget: number;
  /** Resolves a host name to every address it has (injected so tests can point names anywhere). */
  resolve?: (host: string) => Promise<Array<{ address: string; family: number }>>;
}

/** What the sender takes from the service's config; `resolve` as in SenderOptions (tests point names anywhere). */
export type SenderConfig = Pick<
  WebhooksConfig,
  'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS' | 'WEBHOOK_DELIVERY_CONCURRENCY'
> &
  Pick<SenderOptions, 'resolve'>;

/** Reply bodies are read up to this much (then the connection is dropped) ... */
const READ_BODY_BYTES = 64 * 1024;
/** ... and this much is kept for the delivery log. */
const KEEP_BODY_BYTES = 1024;
/** A connection pool to one checked address unused for this long is closed. */
const POOL_IDLE_MS = 60_000;
/** Parsed webhook URLs kept, at most this many. */
const KEPT_TARGETS = 10_000;
/**
 * Each address of a host gets this long to accept a connection (and complete TLS) before the next is tried,
 * within the attempt's own time limit: an unreachable first address must leave time for the others.
 */
const CONNECT_TIMEOUT_MS = 3_000;

/** An attempt's time limit: whether it ran out, and what to end when it does (the step in progress). */
interface TimeLimit {
  expired: boolean;
  onExpiry?: () => void;
}

interface ParsedTarget {
  protocol: string;
  /** The host name or address, without the brackets of an IPv6 literal. */
  host: string;
  port: number;
  /** Path and query. */
  path: string;
  /** When the host is an IP literal: its address, to which the address rule was applied once, or why it is refused. */
  literal?: ResolvedAddress | { refused: string };
}

const systemResolve = (host: string) => dnsLookup(host, { all: true, verbatim: true });

/**
 * POSTs webhook deliveries over HTTPS, only to where they may go: the host is resolved at every attempt, its
 * non-public addresses are skipped (unless private networks are allowed), and the others are tried in turn,
 * IPv6 and IPv4 alternately, until one accepts a connection. A connection goes only to an address that was
 * checked — a second, different DNS answer cannot redirect it. TLS still verifies the certificate against the
 * host name. Redirects are never followed.
 *
 * Connections are pooled per (host, port, checked address), so a kept-alive connection is always one made to
 * an address that passed the check.
 */
@Injectable()
export class HttpSender {
  private readonly pools = new Map<string, { pool: Pool; usedAt: number }>();
  private readonly targets = new Map<string, ParsedTarget>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly resolve: NonNullable<SenderOptions['resolve']>;
  private readonly options: SenderOptions;

  constructor(@Inject(WEBHOOKS_CONFIG) config: Readonly<SenderConfig>) {
    this.options = {
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      // As many connections to one target as attempts may be in flight (see maxSocketsPerTarget).
      maxSocketsPerTarget: config.WEBHOOK_DELIVERY_CONCURRENCY,
    };
    this.resolve = config.resolve ?? systemResolve;
    this.sweeper = setInterval(() => this.closeIdlePools(), POOL_IDLE_MS);
    this.sweeper.unref();
  }

  /** `headers` are the attempt's own (Content-Length and Host are added on the wire). */
  async post(target: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    // The attempt's time limit: a timer cleared when the attempt ends, which ends whatever the attempt is
    // waiting for (an AbortSignal would cost listeners on every request, and AbortSignal.timeout an error
    // object for every attempt, long after it ended).
    const limit: TimeLimit = { expired: false };
    const timer = setTimeout(() => {
      limit.expired = true;
      limit.onExpiry?.();
    }, this.options.timeoutMs);
    try {
      return await this.attempt(target, headers, body, limit, started);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const { pool } of this.pools.values()) void pool.destroy().catch(() => undefined);
    this.pools.clear();
  }

  private async attempt(
    target: string,
    headers: Record<string, string>,
    body: string,
    limit: TimeLimit,
    started: number,
  ): Promise<SendResult> {
    const elapsed = () => performance.now() - started;
    const url = this.parse(target);
    if (!url) return failure('the webhook URL is not valid', elapsed());
    if (url.protocol !== 'https:') return failure('only https URLs are delivered to', elapsed());
    const { host, port, path, literal } = url;
    let addresses: ResolvedAddress[];
    if (literal) {
      if ('refused' in literal) return failure(literal.refused, elapsed());
      addresses = [literal];
    } else {
      try {
        addresses = this.checked(host, await this.resolveHost(host, limit));
      } catch (err) {
        return failure((err as Error).message, elapsed());
      }
      if (limit.expired) return failure(`no reply within ${this.options.timeoutMs} ms`, elapsed());
    }
    // Only an address that never took the request is left for the next: nothing was sent to it.
    const unreached: string[] = [];
    for (const address of addresses) {
      const outcome = await this.exchange(host, port, address, { path, headers, body }, limit, elapsed);
      if (outcome.connected || limit.expired) return outcome.result;
      unreached.push(
        addresses.length > 1 ? `${address.address}: ${outcome.result.error}` : outcome.result.error!,
      );
    }
    return failure(`could not deliver: ${unreached.join('; ')}`, elapsed());
  }

  /**
   * One exchange with one address. `connected` is false when the request never started (no connection or TLS
   * session could be made), so another address may be tried.
   */
  private exchange(
    host: string,
    port: number,
    address: ResolvedAddress,
    request: { path: string; headers: Record<string, string>; body: string },
    limit: TimeLimit,
    elapsed: () => number,
  ): Promise<{ connected: boolean; result: SendResult }> {
    return new Promise((resolve) => {
      let settled = false;
      let connected = false;
      const settle = (result: SendResult) => {
        if (settled) return;
        settled = true;
        limit.onExpiry = undefined;
        resolve({ connected, result });
      };
      // The exchange is ended at the time limit; the attempt ends then whatever stage the exchange is in (still
      // waiting for a connection, say).
      let controller: DispatchController | undefined;
      limit.onExpiry = () => {
        settle(failure(`no reply within ${this.options.timeoutMs} ms`, elapsed()));
        controller?.abort(new Error('timed out'));
      };
      const chunks: Buffer[] = [];
      let status: number | null = null;
      let retryAfter: string | undefined;
      let read = 0;
      let kept = 0;
      const replied = () => {
        const text =
          chunks.length === 0 ? '' : Buffer.concat(chunks).subarray(0, KEEP_BODY_BYTES).toString('utf8');
        settle({ status, retryAfter, body: text || null, error: null, durationMs: elapsed() });
      };
      this.poolFor(host, port, address).dispatch(
        { ...request, method: 'POST' },
        {
          onRequestStart: (exchange) => {
            // Called once the request is being written to a connected socket.
            connected = true;
            controller = exchange;
            if (settled) exchange.abort(new Error('timed out'));
          },
          onResponseStart: (_controller, statusCode, replyHeaders) => {
            status = statusCode;
            if (statusCode === 429 || statusCode === 503)
              retryAfter = firstValue(replyHeaders['retry-after']);
          },
          onResponseData: (exchange, chunk) => {
            read += chunk.length;
            if (kept < KEEP_BODY_BYTES) {
              chunks.push(chunk);
              kept += chunk.length;
            }
            if (read >= READ_BODY_BYTES && !settled) {
              // Enough read: the outcome is known; the rest is not wanted.
              replied();
              exchange.abort(new Error('reply body not read further'));
            }
          },
          onResponseEnd: replied,
          onResponseError: (_controller, err) =>
            settle(
              failure(connected ? `could not deliver: ${describeError(err)}` : describeError(err), elapsed()),
            ),
        },
      );
    });
  }

  /** Resolves a host name to every address it has, within the attempt's time limit. */
  private async resolveHost(host: string, limit: TimeLimit): Promise<ResolvedAddress[]> {
    try {
      return await Promise.race([
        this.resolve(host),
        new Promise<never>((_, reject) => {
          limit.onExpiry = () => reject(new Error(`resolving ${host} timed out`));
        }),
      ]);
    } catch (err) {
      throw new Error(`could not resolve ${host}: ${describeError(err)}`);
    }
  }

  /**
   * Applies the address rule to each address of the host: the ones left, in the order they are tried; refused
   * when none is left.
   */
  private checked(host: string, addresses: ResolvedAddress[]): ResolvedAddress[] {
    if (addresses.length === 0) throw new Error(`${host} has no address`);
    const plan = connectPlan(addresses, this.options.allowPrivateNetworks);
    if (plan.order.length > 0) return plan.order;
    const named = plan.refused.map(({ address, range }) => `${address} (${range})`).join(', ');
    const what = plan.refused.length === 1 ? 'a non-public address' : 'only non-public addresses';
    throw new Error(`refused: ${host} resolves to ${named}, ${what}; deliveries go only to public addresses`);
  }

  /** The parts of a webhook URL a request needs, kept per URL (the same few URLs are posted to again and again). */
  private parse(target: string): ParsedTarget | undefined {
    let parsed = this.targets.get(target);
    if (parsed) return parsed;
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return undefined;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    parsed = {
      protocol: url.protocol,
      host,
      port: Number(url.port || 443),
      path: `${url.pathname}${url.search}`,
    };
    if (isIpLiteral(host)) {
      // An IP literal is its own answer: the address rule is applied to it once.
      try {
        parsed.literal = this.checked(host, [{ address: host, family: host.includes(':') ? 6 : 4 }])[0]!;
      } catch (err) {
        parsed.literal = { refused: (err as Error).message };
      }
    }
    if (this.targets.size >= KEPT_TARGETS) this.targets.clear();
    this.targets.set(target, parsed);
    return parsed;
  }

  private poolFor(host: string, port: number, address: ResolvedAddress): Pool {
    const key = `${host}|${port}|${address.address}`;
    const now = Date.now();
    let entry = this.pools.get(key);
    if (!entry) {
      const timeout = this.options.timeoutMs;
      entry = {
        pool: new Pool(`https://${host.includes(':') ? `[${host}]` : host}:${port}`, {
          connections: this.options.maxSocketsPerTarget,
          // Every connection goes to the checked address; TLS still checks the certificate against the host.
          connect: { lookup: pinnedLookup(address), timeout: Math.min(timeout, CONNECT_TIMEOUT_MS) },
          headersTimeout: timeout,
          bodyTimeout: timeout,
        }),
        usedAt: now,
      };
      this.pools.set(key, entry);
    }
    entry.usedAt = now;
    return entry.pool;
  }

  private closeIdlePools(): void {
    const cutoff = Date.now() - POOL_IDLE_MS;
    for (const [key, entry] of this.pools) {
      if (entry.usedAt < cutoff) {
        void entry.pool.destroy().catch(() => undefined);
        this.pools.delete(key);
      }
    }
  }
}

/** A lookup that answers every question with the address that was checked. */
function pinnedLookup(checked: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: checked.address, family: checked.family }]);
    else callback(null, checked.address, checked.family);
  }) as unknown as LookupFunction;
}

function failure(error: string, durationMs: number): SendResult {
  return { status: null, retryAfter: undefined, body: null, error, durationMs };
}

function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

function describeError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e?.code
    ? `${e.code}${e.message && !e.message.includes(e.code) ? ` (${e.message})` : ''}`
    : String(e?.message ?? err);
}
