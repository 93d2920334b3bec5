import { createSecureContext } from 'node:tls';
import { DnsServer } from './dns/dns-server';
import { QueryCounter } from './dns/query-counter';
import { HttpStandIns, type HttpService } from './http/http-stand-ins';
import { SmtpHosts } from './smtp/smtp-hosts';
import { issueTestCertificates } from './webhooks/test-ca';
import { WorldRegistry } from './world-registry';
import { canonicalName, type DomainSpec, type HostBehaviour } from './world-spec';

export interface MailWorldOptions {
  /** Fixed SMTP port for every host; by default a free port is picked. */
  smtpPort?: number;
}

/**
 * The mail world: real DNS, SMTP and HTTP servers on loopback that stand in for the internet in
 * tests. Domains are defined synchronously; SMTP listeners bind in the background, and the DNS server
 * holds every answer until they are bound, so a client that learns an address from DNS can connect.
 * Tests that dial addresses without DNS await `ready()` first.
 */
export class MailWorld {
  private readonly implicitHosts = new Set<string>();

  private constructor(
    private readonly registry: WorldRegistry,
    private readonly dns: DnsServer,
    private readonly smtp: SmtpHosts,
    private readonly http: HttpStandIns,
    private readonly queries: QueryCounter,
  ) {}

  static async start(options: MailWorldOptions = {}): Promise<MailWorld> {
    const registry = new WorldRegistry();
    const started: { stop(): Promise<void> }[] = [];
    try {
      // The certificate of every host that offers STARTTLS; probes do not verify it, as mail servers don't.
      const certificates = await issueTestCertificates();
      const tls = createSecureContext({ cert: certificates.certPem, key: certificates.keyPem });
      const smtp = await SmtpHosts.start(registry, options.smtpPort, tls);
      started.push(smtp);
      const http = await HttpStandIns.start(registry);
      started.push(http);
      const queries = new QueryCounter();
      const dns = await DnsServer.start(registry, {
        beforeAnswer: () => smtp.ready(),
        onQuery: (name, type) => {
          queries.record(name, type);
        },
      });
      return new MailWorld(registry, dns, smtp, http, queries);
    } catch (error) {
      await Promise.allSettled(started.map((server) => server.stop()));
      throw error;
    }
  }

  /** "127.0.0.1:PORT", for `Resolver#setServers`; UDP and TCP are both served. */
  get dnsServers(): string {
    return this.dns.address;
  }

  get smtpPort(): number {
    return this.smtp.port;
  }

  get gravatarBaseUrl(): string {
    return this.http.gravatarBaseUrl;
  }

  get rdapBaseUrl(): string {
    return this.http.rdapBaseUrl;
  }

  /** Defines or replaces a domain. A host name named again (here or by another domain) takes its newest behaviour. */
  domain(name: string, spec: DomainSpec): this {
    const key = canonicalName(name);
    assertAsciiName(key);
    if (spec.nullMx && spec.mx?.length) throw new Error(`MailWorld: ${key} cannot have both nullMx and mx`);
    this.registry.setDomain(key, spec);
    if (spec.a !== undefined) {
      this.implicitHosts.add(key);
      this.setHost(key, spec.a === 'no-smtp' ? 'refused' : spec.a);
    } else if (this.implicitHosts.delete(key)) {
      this.setHost(key, 'no-address');
    }
    for (const mx of spec.mx ?? []) {
      assertAsciiName(canonicalName(mx.host));
      this.setHost(mx.host, mx.smtp);
    }
    return this;
  }

  /**
   * Gives a name fixed A and AAAA records (IPv4 and IPv6 addresses, each family in the order given), taking
   * precedence over the name's other definitions. Nothing is bound: the test says what listens there.
   */
  addresses(name: string, addresses: readonly string[]): this {
    const key = canonicalName(name);
    assertAsciiName(key);
    this.registry.setAddresses(key, addresses);
    return this;
  }

  /** Lists an IPv4 address in a DNSBL IP zone: "<reversed octets>.<zone>" A answers 127.0.0.2. */
  listIp(zone: string, ip: string): this {
    this.registry.listIp(zone, ip);
    return this;
  }

  /** Reverse DNS: "<reversed octets>.in-addr.arpa" PTR answers `name`. */
  ptr(ip: string, name: string): this {
    this.registry.setPtr(ip, name);
    return this;
  }

  registerGravatar(email: string): this {
    this.http.registerGravatar(email);
    return this;
  }

  /** While down, gravatar and RDAP answer 503. */
  setHttpDown(down: boolean): void {
    this.http.setDown(down);
  }

  /** The loopback address given to a host name (an MX host, or a domain with `a`), if any. */
  hostAddress(host: string): string | undefined {
    return this.registry.getHost(host)?.ip;
  }

  /** Resolves when every SMTP listener defined so far is bound (or closed); rejects if one failed to bind. */
  ready(): Promise<void> {
    return this.smtp.ready();
  }

  smtpConnections(host?: string): number {
    return this.smtp.connections(host);
  }

  /** The most SMTP sessions `host` has had open at once since the last resetCounters. */
  smtpPeakSessions(host: string): number {
    return this.smtp.peakSessions(host);
  }

  /** SMTP sessions of `host` that completed a STARTTLS handshake. */
  smtpTlsSessions(host: string): number {
    return this.smtp.tlsSessions(host);
  }

  smtpTranscript(host?: string): string[] {
    return this.smtp.transcript(host);
  }

  /** DNS questions received, in total, for one name, or for one name and type ("MX", "A", ...). */
  dnsQueries(name?: string, type?: string): number {
    return this.queries.count(name, type);
  }

  /** HTTP requests received by the gravatar or RDAP stand-in (or both). */
  httpRequests(service?: HttpService): number {
    return this.http.requests(service);
  }

  resetCounters(): void {
    this.smtp.resetCounters();
    this.http.resetCounters();
    this.queries.reset();
  }

  /** Closes every server and drops open connections; rethrows a listener bind failure seen on the way. */
  async stop(): Promise<void> {
    const failure = await this.smtp.ready().then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    await Promise.all([this.dns.stop(), this.smtp.stop(), this.http.stop()]);
    if (failure) throw failure;
  }

  private setHost(name: string, behaviour: HostBehaviour): void {
    this.smtp.sync(this.registry.setHost(name, behaviour));
  }
}

function assertAsciiName(name: string): void {
  if (!/^[a-z0-9_.-]+$/.test(name)) {
    throw new Error(`MailWorld: "${name}" must be a lowercase ASCII (punycode) DNS name`);
  }
}
