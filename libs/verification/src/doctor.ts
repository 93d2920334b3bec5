import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIP, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { classifyAddress } from '@emailverify/net-policy';
import ipaddr from 'ipaddr.js';
import type { Dialer } from './dependencies';
import { createDiagnosticResolver, DNS_ERROR, dnsErrorCode, type DiagnosticResolver } from './dns';
import { createDefaultDependencies, resolverOptions } from './node-dependencies';
import type { VerificationOptions } from './options';
import { isListingAnswer } from './dnsbl';
import { refusedTarget } from './reachability';
import { SmtpConnection, SmtpSessionError } from './smtp/connection';
import { formatReply } from './smtp/reply';

/** What `doctor` checks, in the order it reports them. */
export const DOCTOR_CHECKS = ['dns', 'smtp', 'helo_name', 'ptr', 'dnsbl'] as const;
export type DoctorCheckName = (typeof DOCTOR_CHECKS)[number];

/** `ok` passed; `fail` is a problem to fix; `warn` could not be checked, or is worth a look. */
export type DoctorStatus = 'ok' | 'fail' | 'warn';

export interface DoctorCheck {
  check: DoctorCheckName;
  status: DoctorStatus;
  /** What was checked and what was found. */
  message: string;
  /** What to do about it; empty when there is nothing to do. */
  advice: string;
}

/** What to check against: the domain and mail host to try, and the egress address when it is known. */
export interface DoctorTarget {
  /** The domain whose MX hosts are tried, and under which the DNS servers are checked for invented answers. */
  domain: string;
  /** A mail host (name or IP address) to try instead of the domain's MX hosts. */
  mx?: string;
  /** The address mail servers see this host connect from; found from the SMTP connection when absent. */
  egressIp?: string;
}

/** The target with the settings the checks use. */
interface DoctorOptions extends DoctorTarget {
  /** SMTP egress goes through a proxy, so the local address of a connection is not the egress address. */
  egressThroughProxy: boolean;
  /** DNS_SERVERS, for messages; empty means the system's resolvers. */
  dnsServers: readonly string[];
  smtpPort: number;
  heloName: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** DNSBL_IP_ZONES */
  dnsblZones: readonly string[];
  /** SMTP_ALLOW_PRIVATE_NETWORKS */
  allowPrivateNetworks: boolean;
}

export interface DoctorDependencies {
  resolver: DiagnosticResolver;
  /** The engine's connection function: the doctor's SMTP session goes the way the probes go. */
  dial: Dialer;
}

/** The resolver on the configured DNS servers and the engine's own connection function. */
export function doctorDependencies(engine: VerificationOptions): DoctorDependencies {
  return {
    resolver: createDiagnosticResolver(resolverOptions(engine)),
    dial: createDefaultDependencies(engine).dial,
  };
}

/** Mail hosts tried before the reachability check gives up. */
const MAX_HOSTS = 3;

/**
 * Checks what verification needs from the host it runs on: DNS servers that answer truthfully, outbound SMTP to
 * a real mail host, a HELO name that resolves and matches the egress address's PTR, and an egress address on
 * no blocklist. Never throws for a network problem: each one becomes a failed check saying what to do.
 */
export async function runDoctor(
  target: DoctorTarget,
  engine: VerificationOptions,
  deps: DoctorDependencies = doctorDependencies(engine),
): Promise<DoctorCheck[]> {
  const options: DoctorOptions = {
    ...target,
    egressThroughProxy: Boolean(engine.smtpProxies?.length),
    dnsServers: engine.dnsServers,
    smtpPort: engine.smtpPort,
    heloName: engine.smtpHeloName,
    connectTimeoutMs: engine.smtpConnectTimeoutMs,
    commandTimeoutMs: engine.smtpCommandTimeoutMs,
    dnsblZones: engine.dnsblIpZones,
    allowPrivateNetworks: engine.smtpAllowPrivateNetworks,
  };
  const [dns, smtp, helo] = await Promise.all([
    checkDns(options, deps.resolver),
    checkSmtp(options, deps),
    checkHeloName(options, deps.resolver),
  ]);
  const egress = await egressAddress(options, smtp);
  const [ptr, dnsbl] =
    egress.kind === 'known'
      ? await Promise.all([
          checkPtr(options, deps.resolver, egress.ip),
          checkDnsbl(options, deps.resolver, egress.ip),
        ])
      : [
          { check: 'ptr' as const, status: 'warn' as const, ...egress.why },
          { check: 'dnsbl' as const, status: 'warn' as const, ...egress.why },
        ];
  return [dns, smtp.check, helo, ptr, dnsbl];
}

function result(check: DoctorCheckName, status: DoctorStatus, message: string, advice = ''): DoctorCheck {
  return { check, status, message, advice };
}

function servers(options: DoctorOptions): string {
  return options.dnsServers.length > 0
    ? `the DNS servers ${options.dnsServers.join(', ')} (DNS_SERVERS)`
    : 'the system DNS servers (/etc/resolv.conf)';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A name that must exist resolves, and a random name that cannot exist is NXDOMAIN rather than an address. */
async function checkDns(options: DoctorOptions, resolver: DiagnosticResolver): Promise<DoctorCheck> {
  const who = servers(options);
  const fix =
    'set DNS_SERVERS to resolvers that answer truthfully (a local recursive resolver such as unbound)';
  try {
    await resolver.resolveMx(options.domain);
  } catch (error) {
    const code = dnsErrorCode(error);
    if (code === DNS_ERROR.NOT_FOUND) {
      return result('dns', 'fail', `${who} say ${options.domain} does not exist (NXDOMAIN)`, fix);
    }
    if (code !== DNS_ERROR.NO_DATA) {
      return result('dns', 'fail', `${who} did not answer the MX query for ${options.domain} (${code})`, fix);
    }
  }
  const random = `ev-doctor-${randomBytes(8).toString('hex')}.${options.domain}`;
  try {
    const addresses = await resolver.resolve4(random);
    if (addresses.length > 0) {
      return result(
        'dns',
        'fail',
        `${who} answer ${addresses.join(', ')} for ${random}, a name that does not exist: they rewrite NXDOMAIN, so every domain would look real`,
        fix,
      );
    }
  } catch (error) {
    const code = dnsErrorCode(error);
    if (code !== DNS_ERROR.NOT_FOUND && code !== DNS_ERROR.NO_DATA) {
      return result('dns', 'fail', `${who} did not answer the A query for ${random} (${code})`, fix);
    }
  }
  return result(
    'dns',
    'ok',
    `${who} answer: ${options.domain} resolves and a random name under it is NXDOMAIN`,
  );
}

interface SmtpFinding {
  check: DoctorCheck;
  /** Local address of the SMTP connection that was made, if one was. */
  localAddress?: string;
  /** The first address tried, to find the route to it when no connection was made. */
  firstTarget?: string;
}

/** Mail hosts to try: the one named, or the domain's MX hosts (its own address without MX records). */
async function mailHosts(
  options: DoctorOptions,
  resolver: DiagnosticResolver,
): Promise<{ hosts: { name: string; address: string }[] } | { problem: string }> {
  let names: string[];
  if (options.mx) {
    names = [options.mx];
  } else {
    try {
      const records = await resolver.resolveMx(options.domain);
      names = records
        .filter((r) => r.exchange !== '' && r.exchange !== '.')
        .sort((a, b) => a.priority - b.priority)
        .map((r) => r.exchange.replace(/\.$/, ''));
      if (records.length > 0 && names.length === 0) {
        return {
          problem: `${options.domain} publishes a null MX: it takes no mail; name another --domain or --mx`,
        };
      }
    } catch (error) {
      const code = dnsErrorCode(error);
      if (code !== DNS_ERROR.NO_DATA)
        return { problem: `the MX lookup of ${options.domain} failed (${code})` };
      names = [];
    }
    if (names.length === 0) names = [options.domain];
  }
  const hosts: { name: string; address: string }[] = [];
  const problems: string[] = [];
  for (const name of names.slice(0, MAX_HOSTS)) {
    if (isIP(name)) {
      hosts.push({ name, address: name });
      continue;
    }
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    const addresses = [v4, v6].flatMap((o) => (o.status === 'fulfilled' ? o.value : []));
    if (addresses.length > 0) hosts.push({ name, address: addresses[0]! });
    else
      problems.push(
        `${name} has no address (${v4.status === 'rejected' ? dnsErrorCode(v4.reason) : 'no A/AAAA'})`,
      );
  }
  return hosts.length > 0 ? { hosts } : { problem: problems.join('; ') };
}

/** Port 25 of a real mail host: a connection, the greeting, EHLO answered, QUIT. */
async function checkSmtp(options: DoctorOptions, deps: DoctorDependencies): Promise<SmtpFinding> {
  const found = await mailHosts(options, deps.resolver);
  if ('problem' in found) {
    return {
      check: result(
        'smtp',
        'fail',
        `no mail host to try: ${found.problem}`,
        'check the dns line, or name a host with --mx',
      ),
    };
  }
  const failures: string[] = [];
  let refusedByGreeting: string | undefined;
  let dialled = false;
  for (const host of found.hosts) {
    const target = `${host.name === host.address ? host.address : `${host.name} (${host.address})`} port ${options.smtpPort}`;
    const refusal = refusedTarget(host.address, options.allowPrivateNetworks);
    if (refusal) {
      failures.push(`${target}: ${refusal}`);
      continue;
    }
    dialled = true;
    let socket: Duplex;
    try {
      socket = await dialWithin(deps.dial, host.address, options);
    } catch (error) {
      failures.push(`${target}: ${messageOf(error)}`);
      continue;
    }
    const localAddress = socket instanceof Socket ? socket.localAddress : undefined;
    const connection = new SmtpConnection(socket, options.commandTimeoutMs);
    try {
      const banner = await connection.readReply();
      if (banner.code !== 220) {
        refusedByGreeting = `${target} greeted with ${formatReply(banner)}`;
        failures.push(refusedByGreeting);
        continue;
      }
      const hello = await connection.command(`EHLO ${options.heloName}`);
      if (hello.code !== 250) {
        refusedByGreeting = `${target} answered EHLO ${options.heloName} with ${formatReply(hello)}`;
        failures.push(refusedByGreeting);
        continue;
      }
      await connection.command('QUIT').catch(() => undefined);
      return {
        check: result(
          'smtp',
          'ok',
          `${target}: greeting ${banner.code}, EHLO ${options.heloName} answered 250`,
        ),
        localAddress,
      };
    } catch (error) {
      if (!(error instanceof SmtpSessionError)) throw error;
      failures.push(`${target}: ${error.message}`);
    } finally {
      connection.close();
    }
  }
  const advice = refusedByGreeting
    ? 'the mail host refuses this host: see the ptr and dnsbl lines, and the reply text'
    : !dialled
      ? 'name a mail host with a public address (--mx, --domain); SMTP_ALLOW_PRIVATE_NETWORKS=true is for private deployments only'
      : `outbound connections to port ${options.smtpPort} are blocked or filtered: ask the hosting provider to open port 25, or send SMTP through a host that can`;
  return {
    check: result('smtp', 'fail', `no SMTP session: ${failures.join('; ')}`, advice),
    firstTarget: found.hosts[0]?.address,
  };
}

async function dialWithin(dial: Dialer, address: string, options: DoctorOptions): Promise<Duplex> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.connectTimeoutMs);
  try {
    return await dial({ host: address, port: options.smtpPort }, controller.signal);
  } catch (error) {
    if (timedOut) throw new Error(`no connection within ${options.connectTimeoutMs} ms`, { cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** SMTP_HELO_NAME is a name with an address: receivers look it up, and many refuse one that does not resolve. */
async function checkHeloName(options: DoctorOptions, resolver: DiagnosticResolver): Promise<DoctorCheck> {
  const name = options.heloName;
  const fix = `give SMTP_HELO_NAME a name with an A record pointing at the egress address (and the same PTR), or set SMTP_HELO_NAME to such a name`;
  if (isIP(name))
    return result('helo_name', 'fail', `SMTP_HELO_NAME is an address (${name}), not a host name`, fix);
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  const addresses = [v4, v6].flatMap((o) => (o.status === 'fulfilled' ? o.value : []));
  if (addresses.length > 0) {
    return result('helo_name', 'ok', `SMTP_HELO_NAME ${name} resolves to ${addresses.join(', ')}`);
  }
  const codes = [v4, v6].map((o) => (o.status === 'rejected' ? dnsErrorCode(o.reason) : DNS_ERROR.NO_DATA));
  const missing = codes.every((c) => c === DNS_ERROR.NOT_FOUND || c === DNS_ERROR.NO_DATA);
  return result(
    'helo_name',
    'fail',
    missing
      ? `SMTP_HELO_NAME ${name} does not resolve (${codes.includes(DNS_ERROR.NOT_FOUND) ? 'NXDOMAIN' : 'no A or AAAA record'})`
      : `the address lookup of SMTP_HELO_NAME ${name} failed (${codes.join(', ')})`,
    missing ? fix : 'see the dns line',
  );
}

type Egress = { kind: 'known'; ip: string } | { kind: 'unknown'; why: { message: string; advice: string } };

/** The address mail servers see: given, or the local end of the SMTP connection, or of the route to the MX. */
async function egressAddress(options: DoctorOptions, smtp: SmtpFinding): Promise<Egress> {
  if (options.egressIp) return { kind: 'known', ip: options.egressIp };
  const pass = 'pass the public address mail servers see with --egress-ip';
  if (options.egressThroughProxy) {
    return {
      kind: 'unknown',
      why: {
        message: 'not checked: SMTP goes through a proxy, whose egress address is not known here',
        advice: pass,
      },
    };
  }
  const local = unmapped(
    smtp.localAddress ?? (smtp.firstTarget ? await routeSource(smtp.firstTarget) : undefined),
  );
  if (!local) {
    return {
      kind: 'unknown',
      why: { message: 'not checked: the egress address could not be found', advice: pass },
    };
  }
  const range = classifyAddress(local);
  if (range !== 'public' && !options.allowPrivateNetworks) {
    return {
      kind: 'unknown',
      why: {
        message: `not checked: this host connects from ${local} (${range}), so a NAT or firewall gives it another address outside`,
        advice: pass,
      },
    };
  }
  return { kind: 'known', ip: local };
}

function unmapped(address: string | undefined): string | undefined {
  return address?.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1') || undefined;
}

/** The source address the system would use towards `target`; a connected UDP socket sends nothing. */
async function routeSource(target: string): Promise<string | undefined> {
  const socket = createSocket(isIP(target) === 6 ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(9, target, () => resolve());
    });
    return socket.address().address;
  } catch {
    return undefined;
  } finally {
    socket.close();
  }
}

/** The egress address's PTR names SMTP_HELO_NAME: receivers compare the two. */
async function checkPtr(
  options: DoctorOptions,
  resolver: DiagnosticResolver,
  ip: string,
): Promise<DoctorCheck> {
  const helo = canonical(options.heloName);
  const fix = `ask whoever owns ${ip} (the hosting provider) to set its PTR record to ${options.heloName}, or set SMTP_HELO_NAME to the name the PTR gives`;
  let names: string[];
  try {
    names = await resolver.resolvePtr(`${reversedName(ip)}.${isIP(ip) === 4 ? 'in-addr.arpa' : 'ip6.arpa'}`);
  } catch (error) {
    const code = dnsErrorCode(error);
    if (code === DNS_ERROR.NOT_FOUND || code === DNS_ERROR.NO_DATA) {
      return result('ptr', 'fail', `the egress address ${ip} has no PTR record`, fix);
    }
    return result(
      'ptr',
      'fail',
      `the PTR lookup of the egress address ${ip} failed (${code})`,
      'see the dns line',
    );
  }
  if (names.some((n) => canonical(n) === helo)) {
    return result('ptr', 'ok', `the egress address ${ip} has PTR ${options.heloName}, the HELO name`);
  }
  return result(
    'ptr',
    'fail',
    `the PTR of the egress address ${ip} is ${names.join(', ') || 'empty'}, not SMTP_HELO_NAME ${options.heloName}`,
    fix,
  );
}

function canonical(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/** An address as reverse DNS and the blocklists name it: reversed octets (IPv4) or nibbles (IPv6). */
function reversedName(ip: string): string {
  if (isIP(ip) === 4) return ip.split('.').reverse().join('.');
  const nibbles = ipaddr.IPv6.parse(ip)
    .parts.map((part) => part.toString(16).padStart(4, '0'))
    .join('');
  return nibbles.split('').reverse().join('.');
}

/** The egress address on each of DNSBL_IP_ZONES: an answer in 127/8 is a listing, with its TXT reason. */
async function checkDnsbl(
  options: DoctorOptions,
  resolver: DiagnosticResolver,
  ip: string,
): Promise<DoctorCheck> {
  if (options.dnsblZones.length === 0) {
    return result(
      'dnsbl',
      'warn',
      'not checked: DNSBL_IP_ZONES is empty',
      'set DNSBL_IP_ZONES, e.g. zen.spamhaus.org',
    );
  }
  const reversed = reversedName(ip);
  const answers = await Promise.all(
    options.dnsblZones.map(async (zone) => {
      const name = `${reversed}.${zone}`;
      try {
        const addresses = await resolver.resolve4(name);
        if (addresses.some(isListingAnswer)) {
          const reason = await resolver.resolveTxt(name).then(
            (texts) => texts.join(' '),
            () => '',
          );
          return {
            zone,
            kind: 'listed' as const,
            text: `${zone} (${addresses.join(', ')}${reason ? `: ${reason}` : ''})`,
          };
        }
        return {
          zone,
          kind: 'unclear' as const,
          text: `${zone} answered ${addresses.join(', ')}, which is no listing: the list refuses queries from these DNS servers (public resolvers), or they rewrite answers`,
        };
      } catch (error) {
        const code = dnsErrorCode(error);
        if (code === DNS_ERROR.NOT_FOUND || code === DNS_ERROR.NO_DATA)
          return { zone, kind: 'clear' as const, text: zone };
        return { zone, kind: 'unclear' as const, text: `${zone} did not answer (${code})` };
      }
    }),
  );
  const listed = answers.filter((a) => a.kind === 'listed');
  if (listed.length > 0) {
    return result(
      'dnsbl',
      'fail',
      `the egress address ${ip} is listed on ${listed.map((a) => a.text).join('; ')}`,
      'find why (a shared or recycled address, a compromised host), then request removal at each list',
    );
  }
  const unclear = answers.filter((a) => a.kind === 'unclear');
  if (unclear.length > 0) {
    return result(
      'dnsbl',
      'warn',
      `the egress address ${ip} is on none of the lists that answered; ${unclear.map((a) => a.text).join('; ')}`,
      'query the lists through a resolver of your own (DNS_SERVERS), not a public one',
    );
  }
  return result('dnsbl', 'ok', `the egress address ${ip} is on none of ${options.dnsblZones.join(', ')}`);
}
