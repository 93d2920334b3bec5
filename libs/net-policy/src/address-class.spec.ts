import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, isIpLiteral, isPublicAddress } from './address-class';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.5', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['2002:7f00:1::1', 'loopback'],
    ['2001::1', 'teredo'],
    ['4000::1', 'reserved'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses the inet_aton spellings of an address and anything that is not an address', () => {
    for (const spelling of ['2130706433', '0x7f.1', '0177.0.0.1', '127.1', 'localhost', '', 'example.com'])
      expect(isPublicAddress(spelling)).toBe(false);
  });

  it('never calls an address in 10/8, 127/8 or 192.168/16 public, in any IPv6 wrapping', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(fc.constantFrom(10, 127), octet, octet, octet, (a, b, c, d) => {
        const v4 = `${a}.${b}.${c}.${d}`;
        const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
        return [
          v4,
          `::ffff:${v4}`,
          `64:ff9b::${hex(a, b)}:${hex(c, d)}`,
          `2002:${hex(a, b)}:${hex(c, d)}::1`,
        ].every((form) => !isPublicAddress(form));
      }),
    );
  });
});

describe('isIpLiteral', () => {
  it('tells address literals from host names', () => {
    expect(isIpLiteral('10.0.0.5')).toBe(true);
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('fe80::1%eth0')).toBe(true);
    expect(isIpLiteral('hooks.example.com')).toBe(false);
  });
});
