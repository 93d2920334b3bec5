import { Duplex } from 'node:stream';
import type { Clock, Dialer, FetchLike } from '../dependencies';
import { DNS_ERROR, dnsError, type MxRecord, type Resolver } from '../dns';
import type { VerificationOptions } from '../options';

/** Test doubles for the engine's injected dependencies. Not part of the public surface. */

/** Engine settings for tests over these fakes. */
export const ENGINE_TEST_OPTIONS: VerificationOptions = {
  dnsServers: ['127.0.0.1:53'],
  dnsTimeoutMs: 500,
  smtpPort: 25,
  smtpHeloName: 'probe.verifier.test',
  smtpMailFrom: 'verify@verifier.test',
  smtpConnectTimeoutMs: 200,
  smtpCommandTimeoutMs: 200,
  smtpMaxConcurrencyPerMx: 2,
  smtpSemaphoreTimeoutMs: 50,
  dnsblIpZones: ['zen.bl.test'],
  dnsblDomainZones: ['dbl.bl.test'],
  gravatarBaseUrl: 'http://gravatar.test/avatar',
  rdapBaseUrl: 'http://rdap.test',
  // The fake hosts use documentation ranges (192.0.2.0/24), which are not public; the rule has its own tests.
  smtpAllowPrivateNetworks: true,
};

type Answer<T> = T | string;

export interface FakeZone {
  mx?: Answer<MxRecord[]>;
  a?: Answer<string[]>;
  aaaa?: Answer<string[]>;
  txt?: Answer<string[]>;
}

/**
 * A resolver over a table of names. A string answer is an error code (ENOTFOUND, ETIMEOUT, ...); a name absent
 * from the table is NXDOMAIN; a record type absent from a present name is NODATA.
 */
export class FakeResolver implements Resolver {
  readonly queries: string[] = [];

  constructor(readonly zones: Record<string, FakeZone> = {}) {}

  resolveMx(name: string): Promise<MxRecord[]> {
    return this.answer(name, 'MX', (z) => z.mx);
  }

  resolve4(name: string): Promise<string[]> {
    return this.answer(name, 'A', (z) => z.a);
  }

  resolve6(name: string): Promise<string[]> {
    return this.answer(name, 'AAAA', (z) => z.aaaa);
  }

  resolveTxt(name: string): Promise<string[]> {
    return this.answer(name, 'TXT', (z) => z.txt);
  }

  count(name: string, type?: string): number {
    return this.queries.filter((q) => (type ? q === `${name} ${type}` : q.startsWith(`${name} `))).length;
  }

  private async answer<T>(
    name: string,
    type: string,
    pick: (zone: FakeZone) => Answer<T> | undefined,
  ): Promise<T> {
    this.queries.push(`${name} ${type}`);
    await Promise.resolve();
    const zone = this.zones[name];
    if (!zone) throw dnsError(DNS_ERROR.NOT_FOUND, name);
    const value = pick(zone);
    if (value === undefined) throw dnsError(DNS_ERROR.NO_DATA, name);
    if (typeof value === 'string') throw dnsError(value, name);
    return value;
  }
}

export class FakeClock implements Clock {
  constructor(public time = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}

/** What a scripted SMTP host answers to one command line; undefined stays silent. */
export type Responder = (command: string) => string | string[] | undefined | Promise<string | undefined>;

export interface ScriptedHost {
  /** Raw greeting (with CRLF); undefined never greets. Arrays are sent as separate TCP chunks. */
  banner: string | string[] | undefined;
  respond: Responder;
  /** Close the connection after answering QUIT (what real servers do). */
  closeOnQuit?: boolean;
  /** Hang up without a reply when a command starting with this arrives. */
  hangUpOn?: string;
}

export type HostBehaviour = ScriptedHost | 'refused' | 'timeout';

export interface MailboxHostOptions {
  mailboxes?: string[];
  catchAll?: boolean;
  banner?: string;
  ehlo?: string | string[];
  helo?: string;
  mail?: string;
  rcpt?: string | ((address: string) => string | undefined);
}

/**
 * A well-behaved host: greets, answers EHLO with extensions, accepts MAIL, and answers RCPT from a mailbox list.
 * Any reply can be overridden by its raw text.
 */
export function mailboxHost(options: MailboxHostOptions = {}): ScriptedHost {
  const mailboxes = new Set((options.mailboxes ?? []).map((m) => m.toLowerCase()));
  return {
    banner: options.banner ?? '220 mx.test ESMTP ready\r\n',
    closeOnQuit: true,
    respond: (command) => {
      const verb = command.split(/[ :]/, 1)[0].toUpperCase();
      switch (verb) {
        case 'EHLO':
          return (
            options.ehlo ?? '250-mx.test greets you\r\n250-PIPELINING\r\n250-SMTPUTF8\r\n250 8BITMIME\r\n'
          );
        case 'HELO':
          return options.helo ?? '250 mx.test\r\n';
        case 'MAIL':
          return options.mail ?? '250 2.1.0 Sender OK\r\n';
        case 'RCPT': {
          const address = /<(.*)>/.exec(command)?.[1] ?? '';
          if (typeof options.rcpt === 'function') return options.rcpt(address);
          if (options.rcpt) return options.rcpt;
          const local = address.slice(0, address.lastIndexOf('@')).toLowerCase();
          return options.catchAll || mailboxes.has(local)
            ? '250 2.1.5 Recipient OK\r\n'
            : '550 5.1.1 No such user\r\n';
        }
        case 'RSET':
          return '250 2.0.0 Ok\r\n';
        case 'QUIT':
          return '221 2.0.0 Bye\r\n';
        default:
          return '502 5.5.2 Command not recognised\r\n';
      }
    },
  };
}

export interface FakeDialer {
  dial: Dialer;
  /** Connections attempted per address (refused and timed out included). */
  attempts: Map<string, number>;
  /** Command lines received per address, in order. */
  transcripts: Map<string, string[]>;
  /** Sockets not yet destroyed; a correct client leaves none behind. */
  open(): number;
}

/** Dials scripted hosts by IP address; unknown addresses refuse. */
export function fakeDialer(hosts: Record<string, HostBehaviour>): FakeDialer {
  const attempts = new Map<string, number>();
  const transcripts = new Map<string, string[]>();
  const sockets = new Set<Duplex>();
  const dial: Dialer = ({ host }, signal) => {
    attempts.set(host, (attempts.get(host) ?? 0) + 1);
    const behaviour = hosts[host] ?? 'refused';
    if (behaviour === 'refused') {
      return Promise.reject(
        Object.assign(new Error(`connect ECONNREFUSED ${host}:25`), { code: 'ECONNREFUSED' }),
      );
    }
    if (behaviour === 'timeout') {
      return new Promise((_, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    }
    const transcript: string[] = [];
    transcripts.set(host, transcript);
    const socket = scriptedSocket(behaviour, transcript);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    return Promise.resolve(socket);
  };
  return { dial, attempts, transcripts, open: () => [...sockets].filter((s) => !s.destroyed).length };
}

function scriptedSocket(host: ScriptedHost, transcript: string[]): Duplex {
  let received = '';
  const socket: Duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      received += chunk.toString('utf8');
      let end = received.indexOf('\r\n');
      while (end >= 0) {
        const line = received.slice(0, end);
        received = received.slice(end + 2);
        transcript.push(line);
        if (host.hangUpOn && line.startsWith(host.hangUpOn)) {
          setImmediate(() => socket.push(null));
          return callback();
        }
        send(host.respond(line));
        if (host.closeOnQuit && line.toUpperCase() === 'QUIT') setImmediate(() => socket.push(null));
        end = received.indexOf('\r\n');
      }
      callback();
    },
  });
  const send = (reply: string | string[] | undefined | Promise<string | undefined>) => {
    if (reply instanceof Promise) {
      void reply.then(send);
      return;
    }
    if (reply === undefined) return;
    const chunks = Array.isArray(reply) ? reply : [reply];
    // Separate macrotasks, so each chunk arrives as its own 'data' event like a TCP segment.
    for (const [i, chunk] of chunks.entries()) setTimeout(() => !socket.destroyed && socket.push(chunk), i);
  };
  setImmediate(() => send(host.banner));
  return socket;
}

export interface FakeHttp {
  fetch: FetchLike;
  requests: string[];
}

/** Routes requests by URL prefix to a handler; unrouted URLs fail like an unreachable host. */
export function fakeFetch(routes: Record<string, (url: URL) => Response | Promise<Response>>): FakeHttp {
  const requests: string[] = [];
  const fetch: FetchLike = async (url, init) => {
    requests.push(url);
    init.signal?.throwIfAborted();
    for (const [prefix, handler] of Object.entries(routes)) {
      if (url.startsWith(prefix)) return handler(new URL(url));
    }
    throw new TypeError('fetch failed');
  };
  return { fetch, requests };
}

/** Deterministic random: cycles through the given values. */
export function sequenceRandom(values: number[] = [0.1, 0.5, 0.9, 0.3]): () => number {
  let i = 0;
  return () => values[i++ % values.length];
}
