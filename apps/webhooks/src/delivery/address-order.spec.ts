import { describe, expect, it } from 'vitest';
import { connectPlan, interleaveFamilies, type ResolvedAddress } from './address-order';

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });
const addressesOf = (list: ResolvedAddress[]) => list.map((a) => a.address);

describe('interleaveFamilies', () => {
  it('starts with the family of the first answer and alternates, keeping each family in resolver order', () => {
    const ordered = interleaveFamilies([
      v6('2001:db8::1'),
      v6('2001:db8::2'),
      v6('2001:db8::3'),
      v4('192.0.2.1'),
      v4('192.0.2.2'),
    ]);
    expect(addressesOf(ordered)).toEqual([
      '2001:db8::1',
      '192.0.2.1',
      '2001:db8::2',
      '192.0.2.2',
      '2001:db8::3',
    ]);
  });

  it('starts with IPv4 when the resolver answered IPv4 first', () => {
    const ordered = interleaveFamilies([v4('192.0.2.1'), v6('2001:db8::1'), v4('192.0.2.2')]);
    expect(addressesOf(ordered)).toEqual(['192.0.2.1', '2001:db8::1', '192.0.2.2']);
  });

  it('keeps a single family as answered, and an empty answer empty', () => {
    expect(addressesOf(interleaveFamilies([v4('192.0.2.2'), v4('192.0.2.1')]))).toEqual([
      '192.0.2.2',
      '192.0.2.1',
    ]);
    expect(interleaveFamilies([])).toEqual([]);
  });
});

describe('connectPlan: the address rule applies to each address', () => {
  it('skips non-public addresses and tries the public ones', () => {
    const plan = connectPlan(
      [
        v6('::1'),
        v4('127.0.0.1'),
        v6('2606:4700::1'),
        v4('10.0.0.5'),
        v4('8.8.8.8'),
        v6('::ffff:192.168.1.1'),
      ],
      false,
    );
    expect(addressesOf(plan.order)).toEqual(['2606:4700::1', '8.8.8.8']);
    expect(plan.refused).toEqual([
      { address: '::1', range: 'loopback' },
      { address: '127.0.0.1', range: 'loopback' },
      { address: '10.0.0.5', range: 'private' },
      { address: '::ffff:192.168.1.1', range: 'private' },
    ]);
  });

  it('refuses every address of a host that has only non-public ones', () => {
    const plan = connectPlan([v4('169.254.169.254'), v6('fe80::1')], false);
    expect(plan.order).toEqual([]);
    expect(plan.refused.map((r) => r.range)).toEqual(['linkLocal', 'linkLocal']);
  });

  it('tries non-public addresses too when private networks are allowed, each once', () => {
    const plan = connectPlan([v4('127.0.0.2'), v4('127.0.0.2'), v6('::1'), v4('127.0.0.1')], true);
    expect(addressesOf(plan.order)).toEqual(['127.0.0.2', '::1', '127.0.0.1']);
    expect(plan.refused).toEqual([]);
  });
});
