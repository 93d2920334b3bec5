import {
  DMARC_POLICIES,
  type DmarcPolicy,
  type DomainReport,
  type DomainReportReputation,
} from '@emailverify/contracts';
import { isIPv4 } from 'node:net';
import { assertValidDomain } from './address';
import type { Clock } from './dependencies';
import type { DomainFacts, DomainFactsLookup, Resolver } from './dns';
import type { ReputationChecker } from './dnsbl';
import type { ExtrasLookup } from './extras';
import { isDisposableDomain, isFreeProvider } from './lists';
import { publicRouting } from './reachability';
import type { SmtpProber } from './smtp/probe';

/** The engine's parts a domain report uses: the same lookups, caches and SMTP prober as address verification. */
export interface DomainReportParts {
  /** For the SPF and DMARC TXT records. */
  resolver: Resolver;
  domainFacts: DomainFactsLookup;
  reputation: ReputationChecker;
  prober: SmtpProber;
  extras: ExtrasLookup;
  clock: Clock;
  allowPrivateNetworks: boolean;
}

export interface DomainReportOptions {
  /** Probe the mail hosts with a random local part for the catch-all verdict. Without it no SMTP connection. */
  checkSmtp: boolean;
}

/** MX IPv4 addresses whose blocklist listings are looked up (the first is the address report's `mx_ip`). */
const MAX_MX_IPS_CHECKED = 10;

const noReputation = (): DomainReportReputation => ({
  mxIp: '',
  isListed: false,
  blacklists: [],
  checked: false,
  mxIps: [],
});

/**
 * A domain's report: its mail routing (MX, null MX, implicit MX), the catch-all verdict of an SMTP probe with a
 * random local part, blocklist listings of the domain and its MX addresses, SPF and DMARC records, domain age
 * and the list flags. The network rule of verification holds: only public mail hosts are reported and probed
 * (unless private networks are allowed).
 */
export class DomainReporter {
  constructor(private readonly parts: DomainReportParts) {}

  /**
   * @param input the domain as a caller gave it (IDN allowed)
   * @throws DomainError INVALID_REQUEST when it is not a domain name
   */
  async report(input: string, options: DomainReportOptions): Promise<DomainReport> {
    const { clock, domainFacts, allowPrivateNetworks } = this.parts;
    const started = clock.now();
    const domain = assertValidDomain(input);
    const facts = publicRouting(await domainFacts.lookup(domain), allowPrivateNetworks);
    // Nothing more to learn about a name that does not exist, or whose DNS did not answer.
    const exists =
      facts.kind === 'deliverable' || (facts.kind === 'undeliverable' && facts.reason !== 'domain_not_found');
    const hosts = facts.kind === 'deliverable' ? facts.hosts : [];
    const [reputation, domainAge, spf, dmarc, isCatchall] = await Promise.all([
      exists
        ? this.reputationOf(
            domain,
            hosts.flatMap((h) => h.addresses.filter((a) => isIPv4(a))),
          )
        : noReputation(),
      exists ? this.parts.extras.domainAge(domain) : 0,
      exists ? this.spf(domain) : { present: false, record: null },
      exists ? this.dmarc(domain) : { present: false, policy: null },
      options.checkSmtp && facts.kind === 'deliverable'
        ? this.parts.prober.probeCatchAll({ domain, hosts })
        : undefined,
    ]);
    return {
      domain,
      ...routing(facts),
      isCatchall: isCatchall ?? null,
      isDisposable: isDisposableDomain(domain),
      isFree: isFreeProvider(domain),
      domainAge,
      domainReputation: reputation,
      spf,
      dmarc,
      responseTime: Math.max(0, Math.round(clock.now() - started)),
    };
  }

  /** The domain's listings and those of each MX IPv4 address; blocklists are advisory and never fail a report. */
  private async reputationOf(domain: string, ips: readonly string[]): Promise<DomainReportReputation> {
    const distinct = [...new Set(ips)].slice(0, MAX_MX_IPS_CHECKED);
    const check = (name: string | undefined, ip: string) =>
      this.parts.reputation.check(name, ip).then(
        (c) => c.reputation,
        () => undefined,
      );
    const [own, ...perIp] = await Promise.all([
      check(domain, ''),
      ...distinct.map((ip) => check(undefined, ip)),
    ]);
    const all = [own, ...perIp];
    const blacklists = [...new Set(all.flatMap((r) => r?.blacklists ?? []))];
    return {
      mxIp: distinct[0] ?? '',
      isListed: blacklists.length > 0,
      blacklists,
      checked: all.some((r) => r?.checked === true),
      mxIps: distinct.map((ip, i) => ({ ip, blacklists: perIp[i]?.blacklists ?? [] })),
    };
  }

  private async spf(domain: string): Promise<DomainReport['spf']> {
    const record = (await this.txt(domain)).find((r) => /^v=spf1(\s|$)/i.test(r));
    return { present: record !== undefined, record: record ?? null };
  }

  private async dmarc(domain: string): Promise<DomainReport['dmarc']> {
    const record = (await this.txt(`_dmarc.${domain}`)).find((r) => /^v=DMARC1\s*(;|$)/i.test(r));
    return { present: record !== undefined, policy: record === undefined ? null : dmarcPolicy(record) };
  }

  /** TXT records of a name; none when it has none, or when the lookup failed. */
  private async txt(name: string): Promise<string[]> {
    const { resolver } = this.parts;
    if (!resolver.resolveTxt) return [];
    // A name without TXT records (NXDOMAIN, NODATA) has none to report; a failed lookup is reported the same.
    return resolver.resolveTxt(name).catch(() => []);
  }
}

/** The routing fields of a report from the domain's facts. */
function routing(
  facts: DomainFacts,
): Pick<DomainReport, 'acceptsMail' | 'reason' | 'mxRecords' | 'mxHosts' | 'hasNullMx' | 'implicitMx'> {
  switch (facts.kind) {
    case 'deliverable':
      return {
        acceptsMail: true,
        reason: 'mx_found',
        mxRecords: facts.mxRecords,
        mxHosts: facts.hosts.map((h) => ({
          host: h.exchange,
          preference: h.priority,
          addresses: h.addresses,
        })),
        hasNullMx: false,
        implicitMx: facts.implicitMx,
      };
    case 'undeliverable':
      return {
        acceptsMail: false,
        reason: facts.reason,
        mxRecords: facts.mxRecords,
        mxHosts: [],
        hasNullMx: facts.reason === 'null_mx',
        implicitMx: false,
      };
    case 'dns_error':
      return {
        acceptsMail: false,
        reason: 'dns_error',
        mxRecords: [],
        mxHosts: [],
        hasNullMx: false,
        implicitMx: false,
      };
  }
}

/** The `p=` tag of a DMARC record (RFC 7489 6.3), when it names a known policy. */
export function dmarcPolicy(record: string): DmarcPolicy | null {
  for (const tag of record.split(';')) {
    const [name, value] = tag.split('=').map((part) => part.trim().toLowerCase());
    if (name === 'p')
      return (DMARC_POLICIES as readonly string[]).includes(value ?? '') ? (value as DmarcPolicy) : null;
  }
  return null;
}
