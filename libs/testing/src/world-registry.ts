import { AddressPool } from './address-pool';
import { canonicalName, type DomainSpec, type HostBehaviour } from './world-spec';

/** A host name the world answers for, with its fixed address and its current behaviour. */
export interface WorldHost {
  readonly name: string;
  readonly ip: string;
  behaviour: HostBehaviour;
}

/**
 * The facts of the mail world, shared by its DNS, SMTP and HTTP servers. Servers read it on every
 * query or connection, so redefining a domain takes effect at once. A host keeps its address for the
 * life of the world, even when the domain that named it is redefined, so that cached answers stay true.
 */
export class WorldRegistry {
  private readonly domains = new Map<string, DomainSpec>();
  private readonly hostsByName = new Map<string, WorldHost>();
  private readonly hostsByIp = new Map<string, WorldHost>();
  private readonly listedIps = new Map<string, Set<string>>();
  private readonly ptrs = new Map<string, string>();
  private readonly addressRecords = new Map<string, readonly string[]>();
  private readonly pool = new AddressPool();

  setDomain(name: string, spec: DomainSpec): void {
    this.domains.set(canonicalName(name), spec);
  }

  getDomain(name: string): DomainSpec | undefined {
    return this.domains.get(canonicalName(name));
  }

  /** Defines or updates a host; a new name gets the next loopback address. */
  setHost(name: string, behaviour: HostBehaviour): WorldHost {
    const key = canonicalName(name);
    const existing = this.hostsByName.get(key);
    if (existing) {
      existing.behaviour = behaviour;
      return existing;
    }
    const host: WorldHost = { name: key, ip: this.pool.allocate(), behaviour };
    this.hostsByName.set(key, host);
    this.hostsByIp.set(host.ip, host);
    return host;
  }

  getHost(name: string): WorldHost | undefined {
    return this.hostsByName.get(canonicalName(name));
  }

  hostAt(ip: string): WorldHost | undefined {
    return this.hostsByIp.get(ip);
  }

  listIp(zone: string, ip: string): void {
    const key = canonicalName(zone);
    const ips = this.listedIps.get(key) ?? new Set<string>();
    ips.add(ip);
    this.listedIps.set(key, ips);
  }

  /** Fixed A and AAAA answers of a name, in the order given (no listener is bound for them). */
  setAddresses(name: string, addresses: readonly string[]): void {
    this.addressRecords.set(canonicalName(name), [...addresses]);
  }

  addressesOf(name: string): readonly string[] | undefined {
    return this.addressRecords.get(canonicalName(name));
  }

  setPtr(ip: string, name: string): void {
    this.ptrs.set(ip, canonicalName(name));
  }

  ptrOf(ip: string): string | undefined {
    return this.ptrs.get(ip);
  }

  isIpListed(zone: string, ip: string): boolean {
    return this.listedIps.get(canonicalName(zone))?.has(ip) ?? false;
  }

  ipZones(): IterableIterator<string> {
    return this.listedIps.keys();
  }

  /** Domains whose `listedIn` names some zone: [domain, spec] pairs for DNSBL domain-zone lookups. */
  domainEntries(): IterableIterator<[string, DomainSpec]> {
    return this.domains.entries();
  }
}
