import { promises as dnsPromises } from 'node:dns';
import { isIP } from 'node:net';
import { type Entry, InFlight, TtlCache } from './cache';
import type { Clock } from './dependencies';

export interface MxRecord {
  exchange: string;
  priority: number;
}

/**
 * The DNS queries verification makes. Failures reject with an error whose `code` is one of Node's DNS codes
 * (see `DNS_ERROR`), which is what `dns.promises.Resolver` does and what fakes must imitate.
 */
export interface Resolver {
  resolveMx(name: string): Promise<MxRecord[]>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  /**
   * TXT records, each as its strings joined (SPF and DMARC of the domain report). Optional for resolvers that
   * only route mail; without it a domain report says no SPF or DMARC record was found.
   */
  resolveTxt?(name: string): Promise<string[]>;
}

export const DNS_ERROR = {
  /** NXDOMAIN: the name does not exist. */
  NOT_FOUND: 'ENOTFOUND',
  /** The name exists but has no record of the asked type. */
  NO_DATA: 'ENODATA',
  TIMEOUT: 'ETIMEOUT',
  SERVFAIL: 'ESERVFAIL',
  REFUSED: 'EREFUSED',
} as const;

export function dnsErrorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return 'EUNKNOWN';
}

/** Builds an error shaped like the ones `dns.promises.Resolver` rejects with; for fakes and tests. */
export function dnsError(code: string, hostname = ''): Error & { code: string; hostname: string } {
  return Object.assign(new Error(`queryDns ${code} ${hostname}`), { code, hostname });
}

export interface NodeResolverOptions {
  /** `host[:port]` entries (`[v6]:port` for IPv6); empty uses the servers in /etc/resolv.conf. */
  dnsServers: readonly string[];
  dnsTimeoutMs: number;
  dnsTries?: number;
}

/**
 * A resolver that speaks DNS itself (c-ares) to the configured servers. It never goes through the operating
 * system's getaddrinfo, whose answers come from /etc/hosts, nsswitch and caches the service cannot control.
 */
export function createNodeResolver(options: NodeResolverOptions): Resolver {
  return mailQueries(nodeResolver(options));
}

/** The queries the host diagnostics make besides those of verification: blocklist reasons and PTR records. */
export interface DiagnosticResolver extends Resolver {
  /** TXT records, each as its joined strings. */
  resolveTxt(name: string): Promise<string[]>;
  /** PTR records of a name ("1.2.0.192.in-addr.arpa"); asked of DNS only, never of /etc/hosts. */
  resolvePtr(name: string): Promise<string[]>;
}

/** createNodeResolver with TXT and PTR queries, on the same servers. */
export function createDiagnosticResolver(options: NodeResolverOptions): DiagnosticResolver {
  const resolver = nodeResolver(options);
  return { ...mailQueries(resolver), resolvePtr: (name) => resolver.resolvePtr(name) };
}

type NodeResolver = InstanceType<typeof dnsPromises.Resolver>;

function mailQueries(resolver: NodeResolver): Resolver & Pick<DiagnosticResolver, 'resolveTxt'> {
  return {
    resolveMx: (name) => resolver.resolveMx(name),
    resolve4: (name) => resolver.resolve4(name),
    resolve6: (name) => resolver.resolve6(name),
    resolveTxt: async (name) => (await resolver.resolveTxt(name)).map((chunks) => chunks.join('')),
  };
}

function nodeResolver(options: NodeResolverOptions): NodeResolver {
  const resolver = new dnsPromises.Resolver({ timeout: options.dnsTimeoutMs, tries: options.dnsTries ?? 2 });
  if (options.dnsServers.length > 0) resolver.setServers([...options.dnsServers]);
  return resolver;
}

export interface MailHost {
  /** MX exchange name (or the domain itself for an implicit MX, or the IP of an address literal). */
  exchange: string;
  priority: number;
  /** IPv4 addresses first, then IPv6. Never empty. */
  addresses: string[];
}

export type DomainFacts =
  | {
      kind: 'deliverable';
      /** MX exchanges in preference order; the domain itself when it is its own mail host. */
      mxRecords: string[];
      /** Mail hosts that have an address, in preference order. */
      hosts: MailHost[];
      implicitMx: boolean;
    }
  | {
      kind: 'undeliverable';
      reason: 'domain_not_found' | 'null_mx' | 'no_mx_records';
      mxRecords: string[];
      message: string;
    }
  | { kind: 'dns_error'; message: string };

/** Bounds the address lookups for domains that publish absurd numbers of MX records. */
const MAX_MX_HOSTS_RESOLVED = 10;

/** A mail host's addresses (A, then AAAA), and how the lookups went. */
interface HostAddresses {
  addresses: string[];
  transientError: boolean;
  notFound: boolean;
}

/**
 * Classifies a domain's mail routing. Definite answers are cached for `ttlMs`, per domain and, since many
 * domains share a few mail hosts, each host's addresses per host; transient DNS failures are not, so a retry
 * asks again.
 */
export class DomainFactsLookup {
  private readonly cache: TtlCache<string, DomainFacts>;
  private readonly inFlight = new InFlight<string, DomainFacts>();
  private readonly hostCache: TtlCache<string, HostAddresses>;
  private readonly hostsInFlight = new InFlight<string, HostAddresses>();

  /** Told of every definite answer this lookup found itself (not of those it learnt), with its time to live. */
  private listener?: (domain: string, facts: DomainFacts, ttlMs: number) => void;

  constructor(
    private readonly resolver: Resolver,
    clock: Clock,
    private readonly ttlMs: number,
  ) {
    this.cache = new TtlCache(clock);
    this.hostCache = new TtlCache(clock);
  }

  /** The domain's facts when they are cached (definite answers only), without asking, with their expiry. */
  cached(domain: string): Entry<DomainFacts> | undefined {
    return this.cache.entry(domain);
  }

  lookup(domain: string): Promise<DomainFacts> {
    const cached = this.cache.get(domain);
    if (cached) return Promise.resolve(cached);
    return this.inFlight.run(domain, async () => {
      const facts = await this.classify(domain);
      if (facts.kind !== 'dns_error') {
        this.cache.set(domain, facts, this.ttlMs);
        this.listener?.(domain, facts, this.ttlMs);
      }
      return facts;
    });
  }

  /** Calls `listener` with each definite answer found from now on (one listener; a second replaces it). */
  onFound(listener: (domain: string, facts: DomainFacts, ttlMs: number) => void): void {
    this.listener = listener;
  }

  /**
   * Takes a domain's facts found elsewhere (by another process of the same installation), for at most `ttlMs`
   * and never longer than this lookup keeps its own; a domain already cached keeps what it has. Transient
   * failures are never taken: they are not cached here either.
   */
  learn(domain: string, facts: DomainFacts, ttlMs: number): boolean {
    if (facts.kind === 'dns_error' || this.cache.entry(domain)) return false;
    this.cache.set(domain, facts, Math.min(ttlMs, this.ttlMs));
    return true;
  }

  private async classify(domain: string): Promise<DomainFacts> {
    let records: MxRecord[];
    try {
      records = await this.resolver.resolveMx(domain);
    } catch (error) {
      const code = dnsErrorCode(error);
      if (code === DNS_ERROR.NOT_FOUND) return notFound(domain);
      if (code !== DNS_ERROR.NO_DATA) return dnsFailure(`MX lookup for ${domain} failed (${code})`);
      records = [];
    }
    if (records.length === 0) return this.implicitMx(domain);

    const isNull = (r: MxRecord) => r.exchange === '' || r.exchange === '.';
    const usable = records.filter((r) => !isNull(r));
    if (usable.length === 0) {
      return {
        kind: 'undeliverable',
        reason: 'null_mx',
        mxRecords: [],
        message: `${domain} publishes a null MX record (RFC 7505): it accepts no mail`,
      };
    }
    // Array.prototype.sort is stable, so equal preferences keep the order the server gave.
    const ordered = [...usable]
      .map((r) => ({ exchange: r.exchange.replace(/\.$/, '').toLowerCase(), priority: r.priority }))
      .sort((a, b) => a.priority - b.priority);
    const mxRecords = ordered.map((r) => r.exchange);

    const resolved = await Promise.all(
      ordered
        .slice(0, MAX_MX_HOSTS_RESOLVED)
        .map(async (r) => ({ ...r, ...(await this.addressesOf(r.exchange)) })),
    );
    const hosts = resolved
      .filter((h) => h.addresses.length > 0)
      .map(({ exchange, priority, addresses }) => ({ exchange, priority, addresses }));
    if (hosts.length > 0) return { kind: 'deliverable', mxRecords, hosts, implicitMx: false };
    if (resolved.some((h) => h.transientError)) {
      return dnsFailure(`address lookup for the MX hosts of ${domain} failed`);
    }
    return {
      kind: 'undeliverable',
      reason: 'no_mx_records',
      mxRecords,
      message: `none of the MX hosts of ${domain} has an address`,
    };
  }

  /** RFC 5321 5.1: without MX records the domain's own A/AAAA records make it its own mail host. */
  private async implicitMx(domain: string): Promise<DomainFacts> {
    const { addresses, transientError, notFound: nx } = await this.addressesOf(domain);
    if (addresses.length > 0) {
      return {
        kind: 'deliverable',
        mxRecords: [domain],
        hosts: [{ exchange: domain, priority: 0, addresses }],
        implicitMx: true,
      };
    }
    if (transientError) return dnsFailure(`address lookup for ${domain} failed`);
    if (nx) return notFound(domain);
    return {
      kind: 'undeliverable',
      reason: 'no_mx_records',
      mxRecords: [],
      message: `${domain} has neither MX nor address records`,
    };
  }

  private addressesOf(host: string): Promise<HostAddresses> {
    // A misconfigured MX may name an IP address instead of a host; it still routes mail in practice.
    if (isIP(host)) return Promise.resolve({ addresses: [host], transientError: false, notFound: false });
    const cached = this.hostCache.get(host);
    if (cached) return Promise.resolve(cached);
    return this.hostsInFlight.run(host, async () => {
      const found = await this.resolveAddresses(host);
      if (!found.transientError) this.hostCache.set(host, found, this.ttlMs);
      return found;
    });
  }

  private async resolveAddresses(host: string): Promise<HostAddresses> {
    const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(host), this.resolver.resolve6(host)]);
    const addresses: string[] = [];
    let transientError = false;
    let notFound = false;
    for (const outcome of [v4, v6]) {
      if (outcome.status === 'fulfilled') {
        addresses.push(...outcome.value);
        continue;
      }
      const code = dnsErrorCode(outcome.reason);
      if (code === DNS_ERROR.NOT_FOUND) notFound = true;
      else if (code !== DNS_ERROR.NO_DATA) transientError = true;
    }
    return { addresses, transientError, notFound };
  }
}

function notFound(domain: string): DomainFacts {
  return {
    kind: 'undeliverable',
    reason: 'domain_not_found',
    mxRecords: [],
    message: `the domain ${domain} does not exist (NXDOMAIN)`,
  };
}

function dnsFailure(message: string): DomainFacts {
  return { kind: 'dns_error', message };
}
