import { describe, expect, it } from 'vitest';
import { dnsError, DNS_ERROR } from './dns';
import { observedResolver, type DnsQueryOutcome, type DnsQueryType } from './observer';

describe('observedResolver', () => {
  it('tells every query with its record type and outcome, never its name, and passes answers and errors on', async () => {
    const seen: Array<[DnsQueryType, DnsQueryOutcome, number]> = [];
    const resolver = observedResolver(
      {
        resolveMx: async () => [{ exchange: 'mx.example.com', priority: 10 }],
        resolve4: async (name) => {
          if (name === 'gone.example') throw dnsError(DNS_ERROR.NOT_FOUND, name);
          throw dnsError(DNS_ERROR.TIMEOUT, name);
        },
        resolve6: async () => {
          throw new Error('socket closed');
        },
      },
      { dnsQuery: (type, outcome, seconds) => void seen.push([type, outcome, seconds]) },
    );
    expect(await resolver.resolveMx('example.com')).toEqual([{ exchange: 'mx.example.com', priority: 10 }]);
    await expect(resolver.resolve4('gone.example')).rejects.toMatchObject({ code: DNS_ERROR.NOT_FOUND });
    await expect(resolver.resolve4('slow.example')).rejects.toMatchObject({ code: DNS_ERROR.TIMEOUT });
    await expect(resolver.resolve6('example.com')).rejects.toThrow('socket closed');
    expect(seen.map(([type, outcome]) => [type, outcome])).toEqual([
      ['mx', 'ok'],
      ['a', 'nxdomain'],
      ['a', 'timeout'],
      ['aaaa', 'error'],
    ]);
    expect(seen.every(([, , seconds]) => seconds >= 0)).toBe(true);
  });

  it('leaves the resolver as it is without an observer of DNS', () => {
    const plain = { resolveMx: async () => [], resolve4: async () => [], resolve6: async () => [] };
    expect(observedResolver(plain, {})).toBe(plain);
  });
});
