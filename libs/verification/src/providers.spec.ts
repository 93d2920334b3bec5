import { describe, expect, it } from 'vitest';
import { DEFAULT_PROVIDER_RULES, ProviderRules, parseProviderRules } from './providers';

describe('provider rules', () => {
  it('matches exact names and *.suffix patterns, case and trailing dot aside', () => {
    const rules = new ProviderRules(
      parseProviderRules({ rules: [{ name: 'Ex', mx: ['mx.example.net', '*.pool.example.net'] }] }),
      [],
    );
    expect(rules.match('MX.Example.Net.')?.name).toBe('Ex');
    expect(rules.match('a.b.pool.example.net')?.name).toBe('Ex');
    expect(rules.match('pool.example.net')).toBeUndefined();
    expect(rules.match('evilpool.example.net')).toBeUndefined();
    expect(rules.match('mx2.example.net')).toBeUndefined();
  });

  it("puts the operator's rules before the shipped ones", () => {
    const rules = new ProviderRules([
      { name: 'mine', mx: ['*.yahoodns.net'], catchAllProbe: true, acceptsAnyRecipient: false },
    ]);
    expect(rules.match('mta5.am0.yahoodns.net')?.name).toBe('mine');
  });

  it('ships rules for the big consumer providers', () => {
    const rules = new ProviderRules();
    expect(rules.match('mta6.am0.yahoodns.net')).toMatchObject({ acceptsAnyRecipient: true });
    expect(rules.match('alt2.gmail-smtp-in.l.google.com')).toMatchObject({ catchAllProbe: false });
    expect(rules.match('aspmx.l.google.com')).toBeUndefined();
    expect(rules.match('hotmail-com.olc.protection.outlook.com')).toMatchObject({ catchAllProbe: false });
    expect(rules.match('contoso-com.mail.protection.outlook.com')).toBeUndefined();
    for (const rule of DEFAULT_PROVIDER_RULES) expect(parseProviderRules({ rules: [rule] })).toEqual([rule]);
  });

  it('refuses malformed rules with the path of the problem', () => {
    expect(() => parseProviderRules({ rules: [{ name: 'x', mx: [] }] })).toThrow(/rules\.0\.mx/);
    expect(() => parseProviderRules([])).toThrow(/\(root\)/);
    expect(() => parseProviderRules({ rules: [{ name: 'x', mx: ['*'] }] })).toThrow(/a host name/);
  });
});
