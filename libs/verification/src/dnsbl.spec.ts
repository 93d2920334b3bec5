import { describe, expect, it } from 'vitest';
import { ReputationChecker, isListingAnswer } from './dnsbl';
import { DNS_ERROR } from './dns';
import { FakeClock, FakeResolver } from './testing/fakes';

const ZONES = { ipZones: ['zen.bl.test', 'ip2.bl.test'], domainZones: ['dbl.bl.test'] };

function checker(resolver: FakeResolver, zones = ZONES) {
  return new ReputationChecker(resolver, new FakeClock(), zones, 60_000);
}

describe('ReputationChecker', () => {
  it('reports a clean domain and IP as checked and not listed', async () => {
    const result = await checker(new FakeResolver()).check('example.com', '192.0.2.1');
    expect(result).toEqual({
      reputation: { mxIp: '192.0.2.1', isListed: false, blacklists: [], checked: true },
      domainListed: false,
    });
  });

  it('queries the domain in domain zones and the reversed IPv4 in IP zones', async () => {
    const resolver = new FakeResolver();
    await checker(resolver).check('example.com', '192.0.2.1');
    expect(resolver.queries.sort()).toEqual([
      '1.2.0.192.ip2.bl.test A',
      '1.2.0.192.zen.bl.test A',
      'example.com.dbl.bl.test A',
    ]);
  });

  it('marks a domain-zone listing as confirmed abuse', async () => {
    const resolver = new FakeResolver({ 'spammy.example.dbl.bl.test': { a: ['127.0.1.2'] } });
    const result = await checker(resolver).check('spammy.example', '192.0.2.1');
    expect(result.domainListed).toBe(true);
    expect(result.reputation).toMatchObject({ isListed: true, blacklists: ['dbl.bl.test'] });
  });

  it('reports an IP listing only in the reputation', async () => {
    const resolver = new FakeResolver({ '1.2.0.192.zen.bl.test': { a: ['127.0.0.2', '127.0.0.4'] } });
    const result = await checker(resolver).check('example.com', '192.0.2.1');
    expect(result.domainListed).toBe(false);
    expect(result.reputation).toMatchObject({ isListed: true, blacklists: ['zen.bl.test'], checked: true });
  });

  it('leaves out zones that time out and never throws', async () => {
    const resolver = new FakeResolver({
      'example.com.dbl.bl.test': { a: DNS_ERROR.TIMEOUT },
      '1.2.0.192.zen.bl.test': { a: DNS_ERROR.SERVFAIL },
      '1.2.0.192.ip2.bl.test': { a: ['127.0.0.2'] },
    });
    const result = await checker(resolver).check('example.com', '192.0.2.1');
    expect(result.reputation).toEqual({
      mxIp: '192.0.2.1',
      isListed: true,
      blacklists: ['ip2.bl.test'],
      checked: true,
    });
  });

  it('is unchecked when every zone failed', async () => {
    const resolver = new FakeResolver({ 'example.com.dbl.bl.test': { a: DNS_ERROR.TIMEOUT } });
    const result = await checker(resolver, { ipZones: [], domainZones: ['dbl.bl.test'] }).check(
      'example.com',
      '',
    );
    expect(result.reputation).toEqual({ mxIp: '', isListed: false, blacklists: [], checked: false });
  });

  it('does not count Spamhaus error answers (127.255.255.x) or non-loopback answers as listings', async () => {
    const resolver = new FakeResolver({
      'example.com.dbl.bl.test': { a: ['127.255.255.254'] },
      '1.2.0.192.zen.bl.test': { a: ['198.51.100.7'] },
    });
    const result = await checker(resolver).check('example.com', '192.0.2.1');
    expect(result.reputation.isListed).toBe(false);
    expect(result.domainListed).toBe(false);
  });

  it('skips IP zones without an IPv4 MX address and domain zones for address literals', async () => {
    const resolver = new FakeResolver();
    const result = await checker(resolver).check(undefined, '2001:db8::1');
    expect(resolver.queries).toEqual([]);
    expect(result.reputation).toEqual({ mxIp: '', isListed: false, blacklists: [], checked: false });
  });

  it('caches zone answers', async () => {
    const resolver = new FakeResolver();
    const reputation = checker(resolver);
    await reputation.check('example.com', '192.0.2.1');
    await reputation.check('example.com', '192.0.2.1');
    expect(resolver.queries).toHaveLength(3);
  });
});

describe('isListingAnswer', () => {
  it.each([
    ['127.0.0.2', true],
    ['127.0.1.2', true],
    ['127.255.255.254', false],
    ['10.0.0.1', false],
    ['::1', false],
  ])('%s -> %s', (address, listed) => {
    expect(isListingAnswer(address)).toBe(listed);
  });
});
