import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { SocksClient } from 'socks';
import type { Dialer } from '../dependencies';
import { netDialer } from './dialer';

/** One SOCKS5 proxy of SMTP_PROXY_URL. */
export interface SocksProxy {
  host: string;
  port: number;
  userId?: string;
  password?: string;
  /** `host:port`, for messages: never the credentials. */
  label: string;
}

const DEFAULT_SOCKS_PORT = 1080;

/**
 * Parses `socks5://[user:password@]host[:port]` (user and password percent-encoded). The error message never
 * repeats the URL, which may hold a password.
 */
export function parseSocksProxyUrl(text: string): SocksProxy {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error('not a URL; expected socks5://[user:password@]host[:port]');
  }
  if (url.protocol !== 'socks5:') throw new Error(`scheme ${url.protocol} is not supported; use socks5://`);
  if (!url.hostname) throw new Error('the proxy URL has no host');
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash)
    throw new Error('the proxy URL must not have a path, query or fragment');
  const userId = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  if (password !== undefined && userId === undefined) throw new Error('a proxy password needs a user');
  // RFC 1929: user and password are at most 255 octets each.
  if (userId !== undefined && Buffer.byteLength(userId) > 255) throw new Error('the proxy user is too long');
  if (password !== undefined && Buffer.byteLength(password) > 255)
    throw new Error('the proxy password is too long');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : DEFAULT_SOCKS_PORT;
  return {
    host,
    port,
    userId,
    password: password ?? (userId !== undefined ? '' : undefined),
    label: `${host}:${port}`,
  };
}

/**
 * SMTP egress through SOCKS5 proxies. Each address has its proxy, chosen from a hash of the address (of the MX
 * host when no address is given): the same on every verifier and after restarts, so a greylisting server, which
 * lets a (client IP, sender, recipient) triplet through only once it has seen it before, sees a retry come from
 * the address's first egress; and the addresses of one provider spread over the whole list. A proxy that cannot
 * be reached passes the turn to the next. The proxy is asked for the IP address the probe already checked
 * against the network rule, never a name it would resolve itself.
 */
export function socksDialer(proxies: readonly SocksProxy[], dialProxy: Dialer = netDialer): Dialer {
  if (proxies.length === 0) throw new RangeError('socksDialer needs at least one proxy');
  return async (target, signal) => {
    const turn = proxyTurn(target.recipient ?? target.mxHost ?? target.host, proxies.length);
    // A proxy that cannot be reached hands over to the next one of the list; one that answers decides.
    const unreachable: string[] = [];
    let proxy: SocksProxy | undefined;
    let socket: Duplex | undefined;
    for (let i = 0; i < proxies.length && !socket; i++) {
      proxy = proxies[(turn + i) % proxies.length]!;
      try {
        socket = await dialProxy({ host: proxy.host, port: proxy.port }, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        unreachable.push(`SOCKS5 proxy ${proxy.label} unreachable: ${messageOf(error)}`);
      }
    }
    if (!socket || !proxy) throw new Error(unreachable.join('; '));
    const connected = socket;
    const abort = () => connected.destroy();
    signal.addEventListener('abort', abort, { once: true });
    try {
      const established = await SocksClient.createConnection({
        command: 'connect',
        destination: { host: target.host, port: target.port },
        proxy: {
          host: proxy.host,
          port: proxy.port,
          type: 5,
          userId: proxy.userId,
          password: proxy.password,
        },
        existing_socket: socket,
      });
      return established.socket;
    } catch (error) {
      connected.destroy();
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('connect aborted');
      throw new Error(
        `SOCKS5 proxy ${proxy.label} could not connect to ${target.host}:${target.port}: ${messageOf(error)}`,
      );
    } finally {
      signal.removeEventListener('abort', abort);
    }
  };
}

/** The first proxy (of `count`) tried for `key`: stable across processes, spread evenly over the list. */
export function proxyTurn(key: string, count: number): number {
  return createHash('sha256').update(key.toLowerCase()).digest().readUInt32BE(0) % count;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
