import { DomainError } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import { DNS_ERROR } from './dns';
import { dmarcPolicy } from './domain-report';
import { VerificationEngine } from './engine';
import type { VerificationOptions } from './options';
import type { ProviderRule } from './providers';
import {
  ENGINE_TEST_OPTIONS,
  FakeClock,
  FakeResolver,
  fakeDialer,
  fakeFetch,
  mailboxHost,
  sequenceRandom,
  type FakeZone,
  type HostBehaviour,
} from './testing/fakes';

// No gravatar: a domain report never asks for one.
const OPTIONS: VerificationOptions = { ...ENGINE_TEST_OPTIONS, gravatarBaseUrl: '' };

/** example.com: two MX hosts (192.0.2.1 and .2), SPF and DMARC records. */
function world(
  zones: Record<string, FakeZone> = {},
  hosts: Record<string, HostBehaviour> = {},
  options: Partial<VerificationOptions> = {},
) {
  const resolver = new FakeResolver({
    'example.com': {
      mx: [
        { exchange: 'mx2.example.com', priority: 20 },
        { exchange: 'mx1.example.com', priority: 10 },
      ],
      txt: ['google-site-verification=abc', 'v=spf1 mx -all'],
    },
    '_dmarc.example.com': { txt: ['v=DMARC1; p=quarantine; rua=mailto:dmarc@example.com'] },
    'mx1.example.com': { a: ['192.0.2.1'] },
    'mx2.example.com': { a: ['192.0.2.2'], aaaa: ['2001:db8::2'] },
    ...zones,
  });
  const dialer = fakeDialer({ '192.0.2.1': mailboxHost({ mailboxes: ['alice'] }), ...hosts });
  const http = fakeFetch({
    'http://rdap.test/domain/example.com': () =>
      Response.json({ events: [{ eventAction: 'registration', eventDate: '2025-12-22T00:00:00Z' }] }),
    'http://rdap.test/': () => new Response(null, { status: 404 }),
  });
  const engine = new VerificationEngine(
    { ...OPTIONS, ...options },
    { resolver, dial: dialer.dial, fetch: http.fetch, clock: new FakeClock(), random: sequenceRandom() },
  );
  return { engine, resolver, dialer, http };
}

const rcpts = (transcript: string[] | undefined) => (transcript ?? []).filter((l) => l.startsWith('RCPT'));

describe('VerificationEngine.verifyDomain', () => {
  it('reports every field of a domain with MX hosts, SPF and DMARC, without SMTP unless asked', async () => {
    const { engine, dialer } = world();
    const report = await engine.verifyDomain('Example.COM', { checkSmtp: false });
    expect(report).toEqual({
      domain: 'example.com',
      acceptsMail: true,
      reason: 'mx_found',
      mxRecords: ['mx1.example.com', 'mx2.example.com'],
      mxHosts: [
        { host: 'mx1.example.com', preference: 10, addresses: ['192.0.2.1'] },
        { host: 'mx2.example.com', preference: 20, addresses: ['192.0.2.2', '2001:db8::2'] },
      ],
      hasNullMx: false,
      implicitMx: false,
      isCatchall: null,
      isDisposable: false,
      isFree: false,
      domainAge: 10,
      domainReputation: {
        mxIp: '192.0.2.1',
        isListed: false,
        blacklists: [],
        checked: true,
        mxIps: [
          { ip: '192.0.2.1', blacklists: [] },
          { ip: '192.0.2.2', blacklists: [] },
        ],
      },
      spf: { present: true, record: 'v=spf1 mx -all' },
      dmarc: { present: true, policy: 'quarantine' },
      responseTime: 0,
    });
    expect(dialer.attempts.size).toBe(0);
  });

  it('probes a random local part with check_smtp: false when refused, true when accepted', async () => {
    const strict = world();
    expect((await strict.engine.verifyDomain('example.com', { checkSmtp: true })).isCatchall).toBe(false);
    const [probe] = rcpts(strict.dialer.transcripts.get('192.0.2.1'));
    expect(probe).toMatch(/^RCPT TO:<[a-z0-9]{20}@example\.com>$/);

    const open = world({}, { '192.0.2.1': mailboxHost({ catchAll: true }) });
    expect((await open.engine.verifyDomain('example.com', { checkSmtp: true })).isCatchall).toBe(true);
  });

  it('leaves is_catchall null when the probe is inconclusive (452 twice, no host answers)', async () => {
    const deferred = world({}, { '192.0.2.1': mailboxHost({ rcpt: '452 4.5.3 Too many recipients\r\n' }) });
    expect((await deferred.engine.verifyDomain('example.com', { checkSmtp: true })).isCatchall).toBeNull();
    expect(rcpts(deferred.dialer.transcripts.get('192.0.2.1'))).toHaveLength(2);

    const down = world({}, { '192.0.2.1': 'refused', '192.0.2.2': 'refused' });
    const report = await down.engine.verifyDomain('example.com', { checkSmtp: true });
    expect([report.acceptsMail, report.isCatchall]).toEqual([true, null]);
  });

  it('follows the provider rules: no probe where forbidden, catch-all where every RCPT is accepted', async () => {
    const rule = (r: Partial<ProviderRule>): ProviderRule[] => [
      { name: 'p', mx: ['*.example.com'], catchAllProbe: true, acceptsAnyRecipient: false, ...r },
    ];
    const forbidden = world({}, {}, { smtpProviderRules: rule({ catchAllProbe: false }) });
    expect((await forbidden.engine.verifyDomain('example.com', { checkSmtp: true })).isCatchall).toBeNull();
    expect(forbidden.dialer.attempts.size).toBe(0);

    const anyRcpt = world({}, {}, { smtpProviderRules: rule({ acceptsAnyRecipient: true }) });
    expect((await anyRcpt.engine.verifyDomain('example.com', { checkSmtp: true })).isCatchall).toBe(true);
    expect(anyRcpt.dialer.attempts.size).toBe(0);
  });

  it('reports the blocklist listings of the domain and of each MX address', async () => {
    const { engine } = world({
      'example.com.dbl.bl.test': { a: ['127.0.1.2'] },
      '2.2.0.192.zen.bl.test': { a: ['127.0.0.2'] },
    });
    const report = await engine.verifyDomain('example.com', { checkSmtp: false });
    expect(report.domainReputation).toEqual({
      mxIp: '192.0.2.1',
      isListed: true,
      blacklists: ['dbl.bl.test', 'zen.bl.test'],
      checked: true,
      mxIps: [
        { ip: '192.0.2.1', blacklists: [] },
        { ip: '192.0.2.2', blacklists: ['zen.bl.test'] },
      ],
    });
  });

  it('reports null MX, implicit MX, no MX, a missing domain and a DNS failure', async () => {
    const { engine } = world({
      'nullmx.test': { mx: [{ exchange: '.', priority: 0 }] },
      'implicit.test': { a: ['192.0.2.9'] },
      'nothing.test': {},
      'broken.test': { mx: DNS_ERROR.SERVFAIL },
    });
    const pick = async (domain: string) => {
      const r = await engine.verifyDomain(domain, { checkSmtp: false });
      return [r.acceptsMail, r.reason, r.hasNullMx, r.implicitMx, r.mxRecords, r.mxHosts.length];
    };
    expect(await pick('nullmx.test')).toEqual([false, 'null_mx', true, false, [], 0]);
    expect(await pick('implicit.test')).toEqual([true, 'mx_found', false, true, ['implicit.test'], 1]);
    expect(await pick('nothing.test')).toEqual([false, 'no_mx_records', false, false, [], 0]);
    expect(await pick('gone.test')).toEqual([false, 'domain_not_found', false, false, [], 0]);
    expect(await pick('broken.test')).toEqual([false, 'dns_error', false, false, [], 0]);
  });

  it('reports no SPF or DMARC record when there is none, and the flags of the lists', async () => {
    const { engine } = world({ 'mailinator.com': { a: ['192.0.2.7'] }, 'gmail.com': { a: ['192.0.2.8'] } });
    const disposable = await engine.verifyDomain('mailinator.com', { checkSmtp: false });
    expect([disposable.spf, disposable.dmarc]).toEqual([
      { present: false, record: null },
      { present: false, policy: null },
    ]);
    expect(disposable.isDisposable).toBe(true);
    const free = await engine.verifyDomain('gmail.com', { checkSmtp: false });
    expect([free.isDisposable, free.isFree]).toEqual([false, true]);
  });

  it('never connects to a non-public mail host: no_mx_records, no probe', async () => {
    const { engine, dialer } = world(
      {
        'inside.test': { mx: [{ exchange: 'mx.inside.test', priority: 10 }] },
        'mx.inside.test': { a: ['10.0.0.5'] },
      },
      { '10.0.0.5': mailboxHost({ catchAll: true }) },
      { smtpAllowPrivateNetworks: false },
    );
    const report = await engine.verifyDomain('inside.test', { checkSmtp: true });
    expect([report.acceptsMail, report.reason, report.mxHosts, report.isCatchall]).toEqual([
      false,
      'no_mx_records',
      [],
      null,
    ]);
    expect(dialer.attempts.size).toBe(0);
  });

  it('turns an IDN into punycode and refuses what is not a domain', async () => {
    const { engine } = world({ 'xn--bcher-kva.example': { a: ['192.0.2.3'] } });
    expect((await engine.verifyDomain('Bücher.example', { checkSmtp: false })).domain).toBe(
      'xn--bcher-kva.example',
    );
    for (const bad of [
      '',
      'jane@example.com',
      'example',
      '192.0.2.1',
      '[192.0.2.1]',
      'exa mple.com',
      'a..b',
    ]) {
      const error = await engine.verifyDomain(bad, { checkSmtp: false }).catch((e: unknown) => e);
      expect(error, bad).toBeInstanceOf(DomainError);
      expect(error, bad).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'domain' } });
    }
  });

  it('reads the policy of a DMARC record', () => {
    expect(dmarcPolicy('v=DMARC1; p=reject')).toBe('reject');
    expect(dmarcPolicy('v=DMARC1;p=None;pct=100')).toBe('none');
    expect(dmarcPolicy('v=DMARC1; p=bogus')).toBeNull();
    expect(dmarcPolicy('v=DMARC1; rua=mailto:x@example.com')).toBeNull();
  });
});
