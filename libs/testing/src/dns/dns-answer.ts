import type { Answer, Question } from 'dns-packet';
import type { WorldRegistry } from '../world-registry';
import { canonicalName } from '../world-spec';

/** What the DNS server does with one question: answer with an rcode, or stay silent. */
export type DnsOutcome = { kind: 'drop' } | { kind: 'reply'; rcode: DnsRcode; answers: Answer[] };

export type DnsRcode = 'NOERROR' | 'NXDOMAIN' | 'SERVFAIL';

/** Answer of a listed IP in an IP zone, as Spamhaus-style lists do. */
export const DNSBL_IP_ANSWER = '127.0.0.2';
/** Answer of a listed domain in a domain zone. */
export const DNSBL_DOMAIN_ANSWER = '127.0.1.2';

const TTL = 60;

/**
 * Answers one question from the world's facts. Precedence: fixed address records, a defined domain, a host name, the
 * `_dmarc` name of a domain with a DMARC record, then reverse names (PTR), then DNSBL zones; every other name
 * is NXDOMAIN. Answer names echo the question as asked, because a
 * resolver that randomises letter case (DNS 0x20) compares them.
 */
export function answerQuestion(registry: WorldRegistry, question: Question): DnsOutcome {
  const name = canonicalName(question.name);
  const asked = question.name;
  const fixed = registry.addressesOf(name);
  if (fixed) return reply('NOERROR', addressAnswers(asked, question.type, fixed));
  const domain = registry.getDomain(name);
  if (domain) {
    if (domain.dnsTimeout) return { kind: 'drop' };
    if (domain.servfail) return reply('SERVFAIL');
    if (domain.nxdomain) return reply('NXDOMAIN');
    if (question.type === 'MX') return reply('NOERROR', mxAnswers(asked, domain.nullMx, domain.mx));
    if (question.type === 'TXT') return reply('NOERROR', txtAnswers(asked, domain.txt));
    return reply('NOERROR', hostAnswers(registry, name, asked, question.type));
  }
  const dmarcOf = name.startsWith('_dmarc.') ? registry.getDomain(name.slice('_dmarc.'.length)) : undefined;
  if (dmarcOf?.dmarc !== undefined) {
    return reply('NOERROR', question.type === 'TXT' ? txtAnswers(asked, [dmarcOf.dmarc]) : []);
  }
  const host = registry.getHost(name);
  if (host) {
    if (host.behaviour === 'no-address') return reply('NXDOMAIN');
    return reply('NOERROR', hostAnswers(registry, name, asked, question.type));
  }
  if (name.endsWith('.in-addr.arpa')) return ptrAnswer(registry, name, asked, question.type);
  return dnsblAnswer(registry, name, asked, question.type);
}

/** "1.0.0.127.in-addr.arpa": the PTR the world gives that address, else NXDOMAIN. */
function ptrAnswer(registry: WorldRegistry, name: string, asked: string, type: Question['type']): DnsOutcome {
  const ip = reversedIp(name.slice(0, -'.in-addr.arpa'.length));
  const target = ip === undefined ? undefined : registry.ptrOf(ip);
  if (target === undefined) return reply('NXDOMAIN');
  return reply('NOERROR', type === 'PTR' ? [{ type: 'PTR', name: asked, ttl: TTL, data: target }] : []);
}

/** A answers for the IPv4 addresses of a fixed list and AAAA for the IPv6 ones, each in list order. */
function addressAnswers(asked: string, type: Question['type'], addresses: readonly string[]): Answer[] {
  const wanted = type === 'A' ? (a: string) => !a.includes(':') : (a: string) => a.includes(':');
  if (type !== 'A' && type !== 'AAAA') return [];
  return addresses.filter(wanted).map((data) => ({ type, name: asked, ttl: TTL, data }));
}

function reply(rcode: DnsRcode, answers: Answer[] = []): DnsOutcome {
  return { kind: 'reply', rcode, answers };
}

function mxAnswers(
  asked: string,
  nullMx: boolean | undefined,
  mx: { priority: number; host: string }[] = [],
): Answer[] {
  if (nullMx) return [{ type: 'MX', name: asked, ttl: TTL, data: { preference: 0, exchange: '.' } }];
  return [...mx]
    .sort((a, b) => a.priority - b.priority)
    .map((record) => ({
      type: 'MX' as const,
      name: asked,
      ttl: TTL,
      data: { preference: record.priority, exchange: canonicalName(record.host) },
    }));
}

function txtAnswers(asked: string, records: readonly string[] = []): Answer[] {
  return records.map((record) => ({ type: 'TXT' as const, name: asked, ttl: TTL, data: record }));
}

/** Only A records exist besides a domain's TXT: AAAA, NS and the rest are NOERROR with no data. */
function hostAnswers(registry: WorldRegistry, name: string, asked: string, type: Question['type']): Answer[] {
  const host = registry.getHost(name);
  if (type !== 'A' || !host || host.behaviour === 'no-address') return [];
  return [{ type: 'A', name: asked, ttl: TTL, data: host.ip }];
}

function dnsblAnswer(
  registry: WorldRegistry,
  name: string,
  asked: string,
  type: Question['type'],
): DnsOutcome {
  for (const zone of registry.ipZones()) {
    if (!name.endsWith(`.${zone}`)) continue;
    const ip = reversedIp(name.slice(0, -zone.length - 1));
    if (ip === undefined || !registry.isIpListed(zone, ip)) return reply('NXDOMAIN');
    return reply('NOERROR', listingAnswers(asked, type, DNSBL_IP_ANSWER, `${ip} listed in ${zone}`));
  }
  for (const [domain, spec] of registry.domainEntries()) {
    for (const zone of spec.listedIn ?? []) {
      if (name === `${domain}.${canonicalName(zone)}`) {
        return reply(
          'NOERROR',
          listingAnswers(asked, type, DNSBL_DOMAIN_ANSWER, `${domain} listed in ${zone}`),
        );
      }
    }
  }
  return reply('NXDOMAIN');
}

function listingAnswers(asked: string, type: Question['type'], address: string, reason: string): Answer[] {
  if (type === 'A') return [{ type: 'A', name: asked, ttl: TTL, data: address }];
  if (type === 'TXT') return [{ type: 'TXT', name: asked, ttl: TTL, data: reason }];
  return [];
}

/** "4.3.2.1" -> "1.2.3.4"; undefined when the labels are not four octets. */
function reversedIp(labels: string): string | undefined {
  const octets = labels.split('.');
  if (octets.length !== 4 || !octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)) return undefined;
  return octets.reverse().join('.');
}
