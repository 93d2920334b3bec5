import { isIPv4 } from 'node:net';
import type { DomainReputation } from '@emailverify/contracts';
import { type Entry, TtlCache } from './cache';
import type { Clock } from './dependencies';
import { DNS_ERROR, dnsErrorCode, type Resolver } from './dns';

export interface DnsblZones {
  /** Zones listing IPv4 addresses (`zen.spamhaus.org`), queried as reversed octets. */
  ipZones: readonly string[];
  /** Zones listing domain names (`dbl.spamhaus.org`). */
  domainZones: readonly string[];
}

export interface ReputationCheck {
  reputation: DomainReputation;
  /** Only a domain-zone listing counts as confirmed abuse history; an IP listing is about a shared host. */
  domainListed: boolean;
}

type ZoneAnswer = 'listed' | 'not_listed' | 'error';

/**
 * Queries DNS blocklists. A zone that times out or answers oddly is left out of the verdict: blocklists are
 * advisory and must never fail a verification.
 */
export class ReputationChecker {
  private readonly cache: TtlCache<string, ZoneAnswer>;

  constructor(
    private readonly resolver: Resolver,
    clock: Clock,
    private readonly zones: DnsblZones,
    private readonly ttlMs: number,
  ) {
    this.cache = new TtlCache(clock);
  }

  /**
   * @param domain the ASCII domain, or undefined for an address literal (no name to look up)
   * @param mxIp the first MX host's IPv4 address, '' when there is none
   */
  async check(domain: string | undefined, mxIp: string): Promise<ReputationCheck> {
    const { domainQueries, ipQueries } = this.queriesFor(domain, mxIp);
    // No zone to ask (blocklists off): nothing to wait for.
    if (domainQueries.length === 0 && ipQueries.length === 0) return unchecked(mxIp);
    const [domainAnswers, ipAnswers] = await Promise.all([
      Promise.all(domainQueries.map(async (q) => ({ zone: q.zone, answer: await this.query(q.name) }))),
      Promise.all(ipQueries.map(async (q) => ({ zone: q.zone, answer: await this.query(q.name) }))),
    ]);
    return verdict(mxIp, domainAnswers, ipAnswers);
  }

  /**
   * What `check` answers without asking, and until when (the first expiry of the answers it rests on; never
   * when no zone is asked): undefined when some zone's answer is not cached.
   */
  cached(domain: string | undefined, mxIp: string): Entry<ReputationCheck> | undefined {
    const { domainQueries, ipQueries } = this.queriesFor(domain, mxIp);
    if (domainQueries.length === 0 && ipQueries.length === 0)
      return { value: unchecked(mxIp), expiresAt: Infinity };
    let expiresAt = Infinity;
    const answers = (queries: ZoneQuery[]) => {
      const out: ZoneResult[] = [];
      for (const q of queries) {
        const entry = this.cache.entry(q.name);
        if (!entry) return undefined;
        expiresAt = Math.min(expiresAt, entry.expiresAt);
        out.push({ zone: q.zone, answer: entry.value });
      }
      return out;
    };
    const domainAnswers = answers(domainQueries);
    const ipAnswers = domainAnswers && answers(ipQueries);
    return ipAnswers && { value: verdict(mxIp, domainAnswers, ipAnswers), expiresAt };
  }

  private queriesFor(
    domain: string | undefined,
    mxIp: string,
  ): { domainQueries: ZoneQuery[]; ipQueries: ZoneQuery[] } {
    const domainQueries = domain
      ? this.zones.domainZones.map((zone) => ({ zone, name: `${domain}.${zone}` }))
      : [];
    const reversed = isIPv4(mxIp) && this.zones.ipZones.length > 0 ? mxIp.split('.').reverse().join('.') : '';
    const ipQueries = reversed
      ? this.zones.ipZones.map((zone) => ({ zone, name: `${reversed}.${zone}` }))
      : [];
    return { domainQueries, ipQueries };
  }

  private async query(name: string): Promise<ZoneAnswer> {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const answer = await this.ask(name);
    if (answer !== 'error') this.cache.set(name, answer, this.ttlMs);
    return answer;
  }

  private async ask(name: string): Promise<ZoneAnswer> {
    try {
      const addresses = await this.resolver.resolve4(name);
      if (addresses.some(isListingAnswer)) return 'listed';
      // Answers outside 127/8 come from resolvers that rewrite NXDOMAIN; they say nothing about the zone.
      return addresses.length === 0 ? 'not_listed' : 'error';
    } catch (error) {
      const code = dnsErrorCode(error);
      return code === DNS_ERROR.NOT_FOUND || code === DNS_ERROR.NO_DATA ? 'not_listed' : 'error';
    }
  }
}

interface ZoneQuery {
  zone: string;
  name: string;
}

interface ZoneResult {
  zone: string;
  answer: ZoneAnswer;
}

/** No zone to ask (blocklists off). */
function unchecked(mxIp: string): ReputationCheck {
  return {
    reputation: { mxIp: isIPv4(mxIp) ? mxIp : '', isListed: false, blacklists: [], checked: false },
    domainListed: false,
  };
}

function verdict(mxIp: string, domainAnswers: ZoneResult[], ipAnswers: ZoneResult[]): ReputationCheck {
  const all = [...domainAnswers, ...ipAnswers];
  const blacklists = [...new Set(all.filter((a) => a.answer === 'listed').map((a) => a.zone))];
  return {
    reputation: {
      mxIp: isIPv4(mxIp) ? mxIp : '',
      isListed: blacklists.length > 0,
      blacklists,
      checked: all.some((a) => a.answer !== 'error'),
    },
    domainListed: domainAnswers.some((a) => a.answer === 'listed'),
  };
}

/**
 * A listing is an answer in 127.0.0.0/8, except 127.255.255.0/24: Spamhaus and others return those codes to
 * say the query itself was refused (e.g. sent through a public resolver), which is not a listing.
 */
export function isListingAnswer(address: string): boolean {
  if (!isIPv4(address)) return false;
  const octets = address.split('.');
  if (octets[0] !== '127') return false;
  return !(octets[1] === '255' && octets[2] === '255');
}
