import { describe, expect, it } from 'vitest';
import { DNS_ERROR, DomainFactsLookup, dnsErrorCode } from './dns';
import { FakeClock, FakeResolver } from './testing/fakes';

const TTL = 60_000;

function lookup(resolver: FakeResolver, clock = new FakeClock()) {
  return new DomainFactsLookup(resolver, clock, TTL);
}

describe('DomainFactsLookup', () => {
  it('orders MX hosts by preference and keeps only those with an address', async () => {
    const resolver = new FakeResolver({
      'example.com': {
        mx: [
          { exchange: 'mx2.example.com', priority: 20 },
          { exchange: 'MX1.Example.com.', priority: 10 },
          { exchange: 'dead.example.com', priority: 5 },
        ],
      },
      'mx1.example.com': { a: ['192.0.2.1'], aaaa: ['2001:db8::1'] },
      'mx2.example.com': { aaaa: ['2001:db8::2'] },
      'dead.example.com': {},
    });
    const facts = await lookup(resolver).lookup('example.com');
    expect(facts).toEqual({
      kind: 'deliverable',
      mxRecords: ['dead.example.com', 'mx1.example.com', 'mx2.example.com'],
      hosts: [
        { exchange: 'mx1.example.com', priority: 10, addresses: ['192.0.2.1', '2001:db8::1'] },
        { exchange: 'mx2.example.com', priority: 20, addresses: ['2001:db8::2'] },
      ],
      implicitMx: false,
    });
  });

  it('reports NXDOMAIN as domain_not_found', async () => {
    const facts = await lookup(new FakeResolver()).lookup('nowhere.example');
    expect(facts).toMatchObject({ kind: 'undeliverable', reason: 'domain_not_found' });
  });

  it.each([[''], ['.']])('reports a null MX (exchange %j) as null_mx', async (exchange) => {
    const resolver = new FakeResolver({
      'nomail.example': { mx: [{ exchange, priority: 0 }], a: ['192.0.2.9'] },
    });
    expect(await lookup(resolver).lookup('nomail.example')).toMatchObject({
      kind: 'undeliverable',
      reason: 'null_mx',
    });
  });

  it('uses the domain itself as mail host when it has no MX but an address (RFC 5321 5.1)', async () => {
    const resolver = new FakeResolver({ 'implicit.example': { a: ['192.0.2.7'] } });
    expect(await lookup(resolver).lookup('implicit.example')).toEqual({
      kind: 'deliverable',
      mxRecords: ['implicit.example'],
      hosts: [{ exchange: 'implicit.example', priority: 0, addresses: ['192.0.2.7'] }],
      implicitMx: true,
    });
  });

  it('reports no MX and no address as no_mx_records', async () => {
    const resolver = new FakeResolver({ 'bare.example': {} });
    expect(await lookup(resolver).lookup('bare.example')).toMatchObject({
      kind: 'undeliverable',
      reason: 'no_mx_records',
    });
  });

  it('reports MX hosts none of which has an address as no_mx_records', async () => {
    const resolver = new FakeResolver({
      'broken.example': { mx: [{ exchange: 'gone.example', priority: 10 }] },
    });
    expect(await lookup(resolver).lookup('broken.example')).toMatchObject({
      kind: 'undeliverable',
      reason: 'no_mx_records',
      mxRecords: ['gone.example'],
    });
  });

  it.each([DNS_ERROR.TIMEOUT, DNS_ERROR.SERVFAIL, DNS_ERROR.REFUSED, 'ECONNREFUSED'])(
    'reports %s on the MX query as dns_error',
    async (code) => {
      const resolver = new FakeResolver({ 'flaky.example': { mx: code } });
      expect(await lookup(resolver).lookup('flaky.example')).toMatchObject({ kind: 'dns_error' });
    },
  );

  it('reports a failing address lookup of every MX host as dns_error, not as no_mx_records', async () => {
    const resolver = new FakeResolver({
      'example.com': { mx: [{ exchange: 'mx.example.com', priority: 10 }] },
      'mx.example.com': { a: DNS_ERROR.TIMEOUT },
    });
    expect(await lookup(resolver).lookup('example.com')).toMatchObject({ kind: 'dns_error' });
  });

  it('accepts an MX that names an IP address', async () => {
    const resolver = new FakeResolver({ 'odd.example': { mx: [{ exchange: '192.0.2.5', priority: 10 }] } });
    expect(await lookup(resolver).lookup('odd.example')).toMatchObject({
      kind: 'deliverable',
      hosts: [{ exchange: '192.0.2.5', addresses: ['192.0.2.5'] }],
    });
  });

  it('caches definite answers until the TTL passes', async () => {
    const resolver = new FakeResolver({ 'implicit.example': { a: ['192.0.2.7'] } });
    const clock = new FakeClock();
    const facts = lookup(resolver, clock);
    await facts.lookup('implicit.example');
    await facts.lookup('implicit.example');
    expect(resolver.count('implicit.example', 'MX')).toBe(1);
    clock.advance(TTL);
    await facts.lookup('implicit.example');
    expect(resolver.count('implicit.example', 'MX')).toBe(2);
  });

  it('does not cache DNS errors, so a retry asks again', async () => {
    const resolver = new FakeResolver({ 'flaky.example': { mx: DNS_ERROR.TIMEOUT } });
    const facts = lookup(resolver);
    await facts.lookup('flaky.example');
    await facts.lookup('flaky.example');
    expect(resolver.count('flaky.example', 'MX')).toBe(2);
  });

  it('asks once for the addresses of a mail host that many domains share, until the TTL passes', async () => {
    const resolver = new FakeResolver({
      'a.example': { mx: [{ exchange: 'mx.provider.example', priority: 10 }] },
      'b.example': { mx: [{ exchange: 'mx.provider.example', priority: 10 }] },
      'c.example': { mx: [{ exchange: 'mx.provider.example', priority: 10 }] },
      'mx.provider.example': { a: ['192.0.2.9'] },
    });
    const clock = new FakeClock();
    const facts = lookup(resolver, clock);
    const host = { exchange: 'mx.provider.example', priority: 10, addresses: ['192.0.2.9'] };
    for (const domain of ['a.example', 'b.example']) {
      expect(await facts.lookup(domain)).toMatchObject({ kind: 'deliverable', hosts: [host] });
    }
    expect(resolver.count('mx.provider.example', 'A')).toBe(1);
    clock.advance(TTL);
    expect(await facts.lookup('c.example')).toMatchObject({ kind: 'deliverable', hosts: [host] });
    expect(resolver.count('mx.provider.example', 'A')).toBe(2);
  });

  it('asks again for the addresses of a mail host whose lookup failed', async () => {
    const resolver = new FakeResolver({
      'a.example': { mx: [{ exchange: 'mx.flaky.example', priority: 10 }] },
      'b.example': { mx: [{ exchange: 'mx.flaky.example', priority: 10 }] },
      'mx.flaky.example': { a: DNS_ERROR.TIMEOUT, aaaa: DNS_ERROR.TIMEOUT },
    });
    const facts = lookup(resolver);
    expect(await facts.lookup('a.example')).toMatchObject({ kind: 'dns_error' });
    expect(await facts.lookup('b.example')).toMatchObject({ kind: 'dns_error' });
    expect(resolver.count('mx.flaky.example', 'A')).toBe(2);
  });

  it('joins concurrent lookups of one domain into one query', async () => {
    const resolver = new FakeResolver({ 'implicit.example': { a: ['192.0.2.7'] } });
    const facts = lookup(resolver);
    await Promise.all([
      facts.lookup('implicit.example'),
      facts.lookup('implicit.example'),
      facts.lookup('implicit.example'),
    ]);
    expect(resolver.count('implicit.example', 'MX')).toBe(1);
  });
});

describe('dnsErrorCode', () => {
  it('reads the code of a Node DNS error and tolerates anything else', () => {
    expect(dnsErrorCode(Object.assign(new Error('x'), { code: 'ESERVFAIL' }))).toBe('ESERVFAIL');
    expect(dnsErrorCode(new Error('plain'))).toBe('EUNKNOWN');
    expect(dnsErrorCode('text')).toBe('EUNKNOWN');
  });
});
