import ipaddr from 'ipaddr.js';

/**
 * Why an address is not public (ipaddr.js range names, e.g. `loopback`, `private`, `linkLocal`,
 * `uniqueLocal`, `carrierGradeNat`, `multicast`, `reserved`), or `public`.
 */
export type AddressClass = 'public' | string;

/** 2000::/3: the only IPv6 block handed out for global unicast; anything else is reserved or special. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const WELL_KNOWN_NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Classifies an IP address literal (IPv4, IPv6, IPv4-mapped or -translated IPv6) as `public` or the name of the
 * non-public range it is in. A string that is not an IP address is `invalid`. Addresses that carry an IPv4
 * address inside an IPv6 one (IPv4-mapped, NAT64, 6to4) take the class of the IPv4 address they carry, so
 * `::ffff:127.0.0.1` is loopback and `64:ff9b::a00:1` is private. Teredo tunnels hide their target and are
 * never public.
 */
export function classifyAddress(address: string): AddressClass {
  const literal = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Zone ids (fe80::1%eth0) name an interface on this host: link-local by definition.
  if (literal.includes('%')) return 'linkLocal';
  if (!ipaddr.isValid(literal)) return 'invalid';
  const ip = ipaddr.parse(literal);
  if (ip.kind() === 'ipv4') {
    // Only the four-dotted-decimal form: `0x7f.1`, `2130706433` and other inet_aton spellings are refused.
    if (!ipaddr.IPv4.isValidFourPartDecimal(literal)) return 'invalid';
    return ip.range() === 'unicast' ? 'public' : ip.range();
  }
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return classifyV4Bytes(v6.toByteArray().slice(12));
    case 'rfc6052':
      // The well-known NAT64 prefix carries the IPv4 address in its last 32 bits; the local-use prefix
      // (64:ff9b:1::/48) translates into the operator's own network.
      return v6.match(WELL_KNOWN_NAT64) ? classifyV4Bytes(v6.toByteArray().slice(12)) : 'rfc6052';
    case '6to4':
      return classifyV4Bytes(v6.toByteArray().slice(2, 6));
    case 'unicast':
      return v6.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
    default:
      return range;
  }
}

function classifyV4Bytes(bytes: number[]): AddressClass {
  const v4 = new ipaddr.IPv4(bytes);
  return v4.range() === 'unicast' ? 'public' : v4.range();
}

/** True for an address that may be reached on the public internet; false for every special range. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}

/** True when the string is an IP address literal (with or without IPv6 brackets). */
export function isIpLiteral(host: string): boolean {
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(literal.split('%')[0] ?? literal);
}
