import { classifyAddress } from '@emailverify/net-policy';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** The addresses an attempt may connect to, in the order it tries them, and those the address rule refused. */
export interface ConnectPlan {
  order: ResolvedAddress[];
  /** Each refused address with the name of its non-public range. */
  refused: Array<{ address: string; range: string }>;
}

/**
 * Orders a host's addresses for connecting, in the spirit of RFC 8305 (4): the family of the resolver's first
 * answer first, then the two families alternately, each keeping the resolver's order. A host with a broken
 * IPv6 path then costs one failed connection before an IPv4 one, not one per IPv6 address.
 */
export function interleaveFamilies(addresses: readonly ResolvedAddress[]): ResolvedAddress[] {
  const first = addresses[0];
  if (!first) return [];
  const same = addresses.filter((a) => a.family === first.family);
  const other = addresses.filter((a) => a.family !== first.family);
  const ordered: ResolvedAddress[] = [];
  for (let i = 0; i < Math.max(same.length, other.length); i++) {
    if (i < same.length) ordered.push(same[i]!);
    if (i < other.length) ordered.push(other[i]!);
  }
  return ordered;
}

/**
 * Applies the address rule to each address (a non-public one is skipped, never connected to, unless private
 * networks are allowed), drops repeats, and orders the rest for connecting.
 */
export function connectPlan(
  addresses: readonly ResolvedAddress[],
  allowPrivateNetworks: boolean,
): ConnectPlan {
  const seen = new Set<string>();
  const allowed: ResolvedAddress[] = [];
  const refused: ConnectPlan['refused'] = [];
  for (const entry of addresses) {
    if (seen.has(entry.address)) continue;
    seen.add(entry.address);
    const range = allowPrivateNetworks ? 'public' : classifyAddress(entry.address);
    if (range === 'public') allowed.push(entry);
    else refused.push({ address: entry.address, range });
  }
  return { order: interleaveFamilies(allowed), refused };
}
