import { isIPv6, type Socket } from 'node:net';
import type { Request } from 'express';

/** The key of each connection's own address, worked out on its first request. */
const socketKeys = new WeakMap<Socket, string>();

/**
 * The key that per-address limits count a client under: its IPv4 address, or the /64 network of an IPv6
 * address (one subscriber usually holds a whole /64, so counting single addresses would let it rotate them).
 * An IPv4-mapped IPv6 address counts as its IPv4 address. `req.ip` honours TRUST_PROXY, nothing else does.
 */
export function clientAddressKey(req: Pick<Request, 'ip' | 'socket' | 'headers'>): string {
  // Without X-Forwarded-For, `req.ip` is the connection's address whatever TRUST_PROXY says: its key is kept
  // with the connection instead of being worked out again for each of its requests.
  if (!req.headers['x-forwarded-for'] && typeof req.socket.remoteAddress === 'string') {
    let key = socketKeys.get(req.socket);
    if (key === undefined) {
      key = addressKey(req.socket.remoteAddress);
      socketKeys.set(req.socket, key);
    }
    return key;
  }
  return addressKey(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as lower-case hex without leading zeros. */
function expandIPv6(ip: string): string[] {
  const address = ip.split('%')[0] ?? ip; // zone index
  const [head = '', tail] = address.split('::');
  const part = (s: string): string[] => (s ? s.split(':') : []);
  const groups = (s: string): string[] =>
    part(s).flatMap((g) => {
      if (!g.includes('.')) return [g];
      const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16).toString(16));
}
