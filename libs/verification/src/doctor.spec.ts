import { describe, expect, it } from 'vitest';
import { DNS_ERROR, dnsError, type DiagnosticResolver, type MxRecord } from './dns';
import { runDoctor, type DoctorCheck } from './doctor';
import { defaultVerificationOptions, type VerificationOptions } from './options';
import { fakeDialer, mailboxHost, type HostBehaviour } from './testing/fakes';

const HELO = 'probe.verifier.example';

// TEST-NET and documentation addresses: only ever handed to the fake dialer and the fake resolver.
const ENGINE: VerificationOptions = {
  ...defaultVerificationOptions(HELO),
  dnsServers: ['192.0.2.53'],
  dnsblIpZones: ['zen.example'],
  smtpConnectTimeoutMs: 200,
  smtpCommandTimeoutMs: 200,
  // The fake dialer's TEST-NET hosts are non-public; the network rule has tests of its own.
  smtpAllowPrivateNetworks: true,
};

/** A resolver over a table "name TYPE" -> answers; a missing name is NXDOMAIN, a string answer an error code. */
function resolver(
  table: Record<string, string[] | MxRecord[] | string>,
): DiagnosticResolver & { asked: string[] } {
  const asked: string[] = [];
  const answer = async <T>(name: string, type: string): Promise<T> => {
    asked.push(`${name} ${type}`);
    await Promise.resolve();
    const value = table[`${name} ${type}`];
    if (typeof value === 'string') throw dnsError(value, name);
    if (value !== undefined) return value as T;
    const exists = Object.keys(table).some((key) => key.startsWith(`${name} `));
    throw dnsError(exists ? DNS_ERROR.NO_DATA : DNS_ERROR.NOT_FOUND, name);
  };
  return {
    asked,
    resolveMx: (name) => answer(name, 'MX'),
    resolve4: (name) => answer(name, 'A'),
    resolve6: (name) => answer(name, 'AAAA'),
    resolveTxt: (name) => answer(name, 'TXT'),
    resolvePtr: (name) => answer(name, 'PTR'),
  };
}

const HEALTHY = {
  'example.com MX': [{ exchange: 'mx.example.com', priority: 10 }],
  'mx.example.com A': ['192.0.2.25'],
  [`${HELO} A`]: ['198.51.100.7'],
  '7.100.51.198.in-addr.arpa PTR': [HELO],
};

async function doctor(
  table: Record<string, string[] | MxRecord[] | string>,
  hosts: Record<string, HostBehaviour> = { '192.0.2.25': mailboxHost() },
  egressIp = '198.51.100.7',
) {
  const dns = resolver(table);
  const dialer = fakeDialer(hosts);
  const checks = await runDoctor({ domain: 'example.com', egressIp }, ENGINE, {
    resolver: dns,
    dial: dialer.dial,
  });
  const by = Object.fromEntries(checks.map((c) => [c.check, c])) as Record<string, DoctorCheck>;
  return { checks, by, dns, dialer };
}

describe('runDoctor', () => {
  it('passes every check on a healthy host, with EHLO and QUIT only', async () => {
    const { checks, dialer } = await doctor(HEALTHY);
    expect(checks.map((c) => `${c.check} ${c.status}`)).toEqual([
      'dns ok',
      'smtp ok',
      'helo_name ok',
      'ptr ok',
      'dnsbl ok',
    ]);
    expect(dialer.transcripts.get('192.0.2.25')).toEqual([`EHLO ${HELO}`, 'QUIT']);
    expect(dialer.open()).toBe(0);
  });

  it('fails dns when the servers answer an address for a name that does not exist', async () => {
    const lying = resolver(HEALTHY);
    const resolve4 = lying.resolve4;
    lying.resolve4 = (name) =>
      name.startsWith('ev-doctor-') ? Promise.resolve(['198.51.100.99']) : resolve4(name);
    const checks = await runDoctor({ domain: 'example.com', egressIp: '198.51.100.7' }, ENGINE, {
      resolver: lying,
      dial: fakeDialer({ '192.0.2.25': mailboxHost() }).dial,
    });
    const dns = checks.find((c) => c.check === 'dns')!;
    expect(dns.status).toBe('fail');
    expect(dns.message).toMatch(/answer 198\.51\.100\.99 for ev-doctor-[0-9a-f]{16}\.example\.com/);
    expect(dns.advice).toContain('DNS_SERVERS');
  });

  it('fails smtp with the reply when the MX refuses the host at its greeting', async () => {
    const { by } = await doctor(HEALTHY, {
      '192.0.2.25': mailboxHost({ banner: '554 5.7.1 your address is on a blocklist\r\n' }),
    });
    expect(by.smtp!.status).toBe('fail');
    expect(by.smtp!.message).toContain('greeted with 554 5.7.1 your address is on a blocklist');
    expect(by.smtp!.advice).toContain('refuses this host');
  });

  it('fails smtp when the connection times out, naming the timeout', async () => {
    const { by } = await doctor(HEALTHY, { '192.0.2.25': 'timeout' });
    expect(by.smtp!.status).toBe('fail');
    expect(by.smtp!.message).toContain('no connection within 200 ms');
  });

  it('warns, without failing, when a blocklist refuses the query (127.255.255.x)', async () => {
    const { by } = await doctor({ ...HEALTHY, '7.100.51.198.zen.example A': ['127.255.255.254'] });
    expect(by.dnsbl!.status).toBe('warn');
    expect(by.dnsbl!.message).toContain('zen.example answered 127.255.255.254, which is no listing');
  });

  it('queries IPv6 egress addresses as nibbles, for PTR and blocklists', async () => {
    const { by, dns } = await doctor(HEALTHY, undefined, '2001:db8::1');
    const nibbles = `1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2`;
    expect(dns.asked).toContain(`${nibbles}.ip6.arpa PTR`);
    expect(dns.asked).toContain(`${nibbles}.zen.example A`);
    expect(by.ptr!.message).toBe('the egress address 2001:db8::1 has no PTR record');
  });
});
