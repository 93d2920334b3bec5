import {
  REASONS,
  STATUS_PRECEDENCE,
  VERIFICATION_STATUSES,
  type VerificationResult,
} from '@emailverify/contracts';
import { eventually } from '@emailverify/testing';
import { describe, expect, it } from 'vitest';
import type { VerificationDependencies } from './dependencies';
import { DNS_ERROR, type DomainFacts, type MxRecord } from './dns';
import { VerificationEngine, decide, fallbackResult, scoreFor, syntaxFailureResult } from './engine';
import { DEFAULT_TUNING, type VerificationOptions } from './options';
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

const OPTIONS: VerificationOptions = ENGINE_TEST_OPTIONS;

const mx = (host: string, priority = 10): { mx: MxRecord[] } => ({ mx: [{ exchange: host, priority }] });

/** example.com routes to mx1 (192.0.2.1); more zones and hosts can be added per test. */
function world(zones: Record<string, FakeZone> = {}, hosts: Record<string, HostBehaviour> = {}) {
  const resolver = new FakeResolver({
    'example.com': mx('mx1.example.com'),
    'mx1.example.com': { a: ['192.0.2.1'] },
    ...zones,
  });
  const dialer = fakeDialer({ '192.0.2.1': mailboxHost({ mailboxes: ['alice', 'info'] }), ...hosts });
  const http = fakeFetch({
    'http://gravatar.test/': () => new Response(null, { status: 404 }),
    'http://rdap.test/': () => new Response(null, { status: 404 }),
  });
  const clock = new FakeClock();
  const deps: VerificationDependencies = {
    resolver,
    dial: dialer.dial,
    fetch: http.fetch,
    clock,
    random: sequenceRandom(),
  };
  const engine = new VerificationEngine(OPTIONS, deps);
  return { engine, resolver, dialer, http, clock, deps };
}

function summary(result: VerificationResult) {
  return { status: result.status, reason: result.reason, score: result.score };
}

describe('VerificationEngine.verify with SMTP', () => {
  it('confirms an accepted mailbox as valid/accepted with score 0.99 and fills every field', async () => {
    const { engine } = world();
    const result = await engine.verify('alice@Example.com', { checkSmtp: true });
    expect(result).toEqual({
      email: 'alice@example.com',
      status: 'valid',
      reason: 'accepted',
      score: 0.99,
      isDeliverable: true,
      isDisposable: false,
      isCatchall: false,
      isRole: false,
      isFree: false,
      hasGravatar: false,
      gravatarUrl: '',
      domain: 'example.com',
      domainAge: 0,
      mxRecords: ['mx1.example.com'],
      domainReputation: { mxIp: '192.0.2.1', isListed: false, blacklists: [], checked: true },
      smtpCheck: true,
      smtpResponse: '250 2.1.5 Recipient OK',
      errorMessage: '',
      domainSuggestion: '',
      responseTime: 0,
      validFormat: true,
      validDomain: true,
      validMx: true,
      smtpValid: true,
    });
  });

  it('reports a rejected mailbox as invalid/mailbox_not_found with the server reply', async () => {
    const { engine } = world();
    const result = await engine.verify('nobody@example.com', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'invalid', reason: 'mailbox_not_found', score: 0.1 });
    expect(result).toMatchObject({ isDeliverable: false, smtpCheck: true, smtpValid: false, validMx: true });
    expect(result.smtpResponse).toBe('550 5.1.1 No such user');
    expect(result.errorMessage).toContain('550 5.1.1');
  });

  it('reports 552 as invalid/mailbox_full and 452 as unknown/mailbox_full', async () => {
    const full = world({}, { '192.0.2.1': mailboxHost({ rcpt: '552 5.2.2 full\r\n' }) });
    expect(summary(await full.engine.verify('alice@example.com', { checkSmtp: true }))).toEqual({
      status: 'invalid',
      reason: 'mailbox_full',
      score: 0.1,
    });
    const busy = world({}, { '192.0.2.1': mailboxHost({ rcpt: '452 4.2.2 over quota\r\n' }) });
    expect(summary(await busy.engine.verify('alice@example.com', { checkSmtp: true }))).toEqual({
      status: 'unknown',
      reason: 'mailbox_full',
      score: 0.5,
    });
  });

  it('reports a catch-all domain as catchall/catch_all with score 0.70', async () => {
    const { engine } = world({}, { '192.0.2.1': mailboxHost({ catchAll: true }) });
    const result = await engine.verify('anyone@example.com', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'catchall', reason: 'catch_all', score: 0.7 });
    expect(result).toMatchObject({ isCatchall: true, isDeliverable: true, smtpValid: true });
  });

  it('reports greylisting as unknown/greylisted with a message', async () => {
    const { engine } = world({}, { '192.0.2.1': mailboxHost({ rcpt: '450 4.7.1 greylisted\r\n' }) });
    const result = await engine.verify('alice@example.com', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'unknown', reason: 'greylisted', score: 0.5 });
    expect(result.isDeliverable).toBe(false);
    expect(result.errorMessage).not.toBe('');
  });

  it('reports unreachable mail hosts as unknown/smtp_unreachable without a conversation', async () => {
    const { engine } = world({}, { '192.0.2.1': 'refused' });
    const result = await engine.verify('alice@example.com', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'unknown', reason: 'smtp_unreachable', score: 0.5 });
    expect(result.smtpCheck).toBe(false);
  });

  it('reports an exhausted per-MX cap as unknown/mx_only_verification_semaphore_timeout', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const host = mailboxHost({ mailboxes: ['alice'] });
    const { engine, dialer } = world(
      {},
      {
        '192.0.2.1': {
          ...host,
          respond: (line) =>
            line === 'RCPT TO:<alice@example.com>' ? held.then(() => '250 ok\r\n') : host.respond(line),
        },
      },
    );
    const blocking = [
      engine.verify('alice@example.com', { checkSmtp: true }),
      engine.verify('alice@example.com', { checkSmtp: true }),
    ];
    await eventually(
      () => {
        expect(dialer.transcripts.get('192.0.2.1') ?? []).not.toHaveLength(0);
        expect(dialer.attempts.get('192.0.2.1') ?? 0).toBeGreaterThanOrEqual(2);
      },
      { intervalMs: 5 },
    );
    const result = await engine.verify('bob@example.com', { checkSmtp: true });
    expect(summary(result)).toEqual({
      status: 'unknown',
      reason: 'mx_only_verification_semaphore_timeout',
      score: 0.5,
    });
    expect(result).toMatchObject({ smtpCheck: false, validMx: true, isDeliverable: false });
    release();
    expect((await Promise.all(blocking)).map((r) => r.status)).toEqual(['valid', 'valid']);
  });

  it('does not probe disposable domains: the status is disposable whatever the mailbox says', async () => {
    const { engine, dialer } = world({ 'mailinator.com': mx('mx1.example.com') });
    const result = await engine.verify('someone@mailinator.com', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'disposable', reason: 'disposable_domain', score: 0.3 });
    expect(result).toMatchObject({ isDisposable: true, isDeliverable: true, smtpCheck: false });
    expect(dialer.attempts.size).toBe(0);
  });
});

describe('VerificationEngine network rule: no connection to non-public addresses', () => {
  /** The engine with default settings (SMTP_ALLOW_PRIVATE_NETWORKS unset) over the same fakes. */
  function strict(zones: Record<string, FakeZone> = {}, hosts: Record<string, HostBehaviour> = {}) {
    const fakes = world(zones, hosts);
    return {
      ...fakes,
      engine: new VerificationEngine({ ...OPTIONS, smtpAllowPrivateNetworks: false }, fakes.deps),
    };
  }
  const PUBLIC_IP = '93.184.215.14';

  it.each([
    ['x@[127.0.0.5]', '127.0.0.5', 'loopback'],
    ['x@[::1]', '::1', 'loopback'],
    ['x@[IPv6:::ffff:127.0.0.1]', '::ffff:127.0.0.1', 'loopback'],
    ['x@[10.1.2.3]', '10.1.2.3', 'private'],
    ['x@[100.64.0.1]', '100.64.0.1', 'carrierGradeNat'],
    ['x@[169.254.169.254]', '169.254.169.254', 'linkLocal'],
    ['x@[IPv6:fd00::1]', 'fd00::1', 'uniqueLocal'],
    ['x@[0.0.0.0]', '0.0.0.0', 'unspecified'],
  ])('answers %s invalid/no_mx_records without dialling it', async (email, ip, range) => {
    const { engine, dialer } = strict({}, { [ip]: mailboxHost({ mailboxes: ['x'] }) });
    for (const checkSmtp of [true, false]) {
      const result = await engine.verify(email, { checkSmtp });
      expect(summary(result)).toEqual({ status: 'invalid', reason: 'no_mx_records', score: 0.1 });
      expect(result).toMatchObject({ smtpCheck: false, isDeliverable: false, validMx: false });
      expect(result.errorMessage).toContain(`${ip}: ${range}`);
      expect(result.errorMessage).toMatch(/non-public/);
    }
    expect(dialer.attempts.size).toBe(0);
  });

  it('answers a domain whose MX hosts resolve only to loopback and private addresses invalid/no_mx_records', async () => {
    const { engine, dialer } = strict(
      {
        'inside.example': {
          mx: [
            { exchange: 'mx1.inside.example', priority: 10 },
            { exchange: 'mx2.inside.example', priority: 20 },
          ],
        },
        'mx1.inside.example': { a: ['127.0.0.5'] },
        'mx2.inside.example': { a: ['10.0.0.5'], aaaa: ['::ffff:192.168.1.1'] },
      },
      {
        '127.0.0.5': mailboxHost({ mailboxes: ['alice'] }),
        '10.0.0.5': mailboxHost({ mailboxes: ['alice'] }),
      },
    );
    const result = await engine.verify('alice@inside.example', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'invalid', reason: 'no_mx_records', score: 0.1 });
    expect(result.mxRecords).toEqual(['mx1.inside.example', 'mx2.inside.example']);
    expect(result.errorMessage).toContain('mx1.inside.example 127.0.0.5: loopback');
    expect(result.errorMessage).toContain('mx2.inside.example 10.0.0.5: private');
    expect(result.errorMessage).toContain('mx2.inside.example ::ffff:192.168.1.1: private');
    expect(dialer.attempts.size).toBe(0);
  });

  it('applies the rule to a domain that is its own mail host', async () => {
    const { engine, dialer } = strict(
      { 'self.example': { a: ['192.168.0.10'] } },
      { '192.168.0.10': mailboxHost({ mailboxes: ['alice'] }) },
    );
    const result = await engine.verify('alice@self.example', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'invalid', reason: 'no_mx_records', score: 0.1 });
    expect(dialer.attempts.size).toBe(0);
  });

  it('probes only the public addresses of a domain that has both', async () => {
    const { engine, dialer } = strict(
      {
        'mixed.example': {
          mx: [
            { exchange: 'mx1.mixed.example', priority: 10 },
            { exchange: 'mx2.mixed.example', priority: 20 },
          ],
        },
        'mx1.mixed.example': { a: ['10.0.0.7'] },
        'mx2.mixed.example': { a: ['127.0.0.7', PUBLIC_IP] },
      },
      {
        '10.0.0.7': mailboxHost({ mailboxes: ['alice'] }),
        '127.0.0.7': mailboxHost({ mailboxes: ['alice'] }),
        [PUBLIC_IP]: mailboxHost({ mailboxes: ['alice'] }),
      },
    );
    const result = await engine.verify('alice@mixed.example', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'valid', reason: 'accepted', score: 0.99 });
    expect([...dialer.attempts.keys()]).toEqual([PUBLIC_IP]);
  });

  it('contacts non-public mail hosts when SMTP_ALLOW_PRIVATE_NETWORKS is set', async () => {
    const { engine, dialer } = world({}, { '10.1.2.3': mailboxHost({ mailboxes: ['x'] }) });
    const result = await engine.verify('x@[10.1.2.3]', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'valid', reason: 'accepted', score: 0.99 });
    expect(dialer.attempts.get('10.1.2.3')).toBe(1);
  });
});

describe('VerificationEngine.verify without SMTP', () => {
  it('makes no SMTP connection and answers valid/mx_found with score 0.90', async () => {
    const { engine, dialer } = world({}, { '192.0.2.1': mailboxHost({ catchAll: true }) });
    const result = await engine.verify('anyone@example.com', { checkSmtp: false });
    expect(summary(result)).toEqual({ status: 'valid', reason: 'mx_found', score: 0.9 });
    expect(result).toMatchObject({
      smtpCheck: false,
      isCatchall: false,
      smtpValid: false,
      isDeliverable: true,
      smtpResponse: '',
    });
    expect(dialer.attempts.size).toBe(0);
  });

  it('answers role/role_account with score 0.60 for a role local part', async () => {
    const { engine } = world();
    const result = await engine.verify('Info@example.com', { checkSmtp: false });
    expect(summary(result)).toEqual({ status: 'role', reason: 'role_account', score: 0.6 });
    expect(result.isRole).toBe(true);
  });

  it('answers invalid/invalid_syntax (not an exception) for bad syntax, with the reason in errorMessage', async () => {
    const { engine, resolver } = world();
    const result = await engine.verify('  not an address ', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'invalid', reason: 'invalid_syntax', score: 0.1 });
    expect(result).toMatchObject({ email: 'not an address', validFormat: false, validDomain: false });
    expect(result.errorMessage).toMatch(/no "@"/);
    expect(resolver.queries).toEqual([]);
  });

  it('answers invalid/missing_email for an empty address', async () => {
    const { engine } = world();
    expect(summary(await engine.verify('', { checkSmtp: false }))).toEqual({
      status: 'invalid',
      reason: 'missing_email',
      score: 0.1,
    });
  });

  it.each<[string, FakeZone | undefined, string, string, boolean]>([
    ['nxdomain.example', undefined, 'invalid', 'domain_not_found', false],
    ['nullmx.example', { mx: [{ exchange: '', priority: 0 }] }, 'invalid', 'null_mx', true],
    ['bare.example', {}, 'invalid', 'no_mx_records', true],
    ['timeout.example', { mx: DNS_ERROR.TIMEOUT }, 'unknown', 'dns_error', false],
    ['servfail.example', { mx: DNS_ERROR.SERVFAIL }, 'unknown', 'dns_error', false],
  ])('classifies %s as %s/%s', async (domain, zone, status, reason, validDomain) => {
    const { engine, dialer } = world(zone ? { [domain]: zone } : {});
    const result = await engine.verify(`alice@${domain}`, { checkSmtp: true });
    expect(result).toMatchObject({
      status,
      reason,
      validDomain,
      validMx: false,
      isDeliverable: false,
      validFormat: true,
    });
    expect(result.errorMessage).not.toBe('');
    expect(dialer.attempts.size).toBe(0);
  });

  it.each([DNS_ERROR.TIMEOUT, DNS_ERROR.SERVFAIL, DNS_ERROR.REFUSED])(
    'keeps a disposable domain disposable when its DNS lookup fails (%s)',
    async (code) => {
      const { engine, dialer } = world({ 'mailinator.com': { mx: code } });
      const result = await engine.verify('disp@mailinator.com', { checkSmtp: true });
      expect(summary(result)).toEqual({ status: 'disposable', reason: 'disposable_domain', score: 0.3 });
      expect(result).toMatchObject({ isDisposable: true, validFormat: true, errorMessage: '' });
      expect(dialer.attempts.size).toBe(0);
    },
  );

  it('lets a definite DNS answer outrank the disposable flag: a disposable NXDOMAIN domain is invalid', async () => {
    const { engine } = world();
    const result = await engine.verify('disp@mailinator.com', { checkSmtp: false });
    expect(summary(result)).toEqual({ status: 'invalid', reason: 'domain_not_found', score: 0.1 });
    expect(result.isDisposable).toBe(true);
  });

  it('uses the domain as its own mail host when it has only an A record', async () => {
    const { engine, dialer } = world(
      { 'implicit.example': { a: ['192.0.2.50'] } },
      { '192.0.2.50': mailboxHost({ mailboxes: ['alice'] }) },
    );
    const result = await engine.verify('alice@implicit.example', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'valid', reason: 'accepted', score: 0.99 });
    expect(result.mxRecords).toEqual(['implicit.example']);
    expect(dialer.attempts.get('192.0.2.50')).toBe(1);
  });
});

describe('VerificationEngine reputation and extras', () => {
  it('makes a domain-zone listing risky/domain_listed even when the mailbox is confirmed', async () => {
    const { engine } = world({ 'example.com.dbl.bl.test': { a: ['127.0.1.2'] } });
    const result = await engine.verify('alice@example.com', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'risky', reason: 'domain_listed', score: 0.3 });
    expect(result.domainReputation).toEqual({
      mxIp: '192.0.2.1',
      isListed: true,
      blacklists: ['dbl.bl.test'],
      checked: true,
    });
    expect(result.isDeliverable).toBe(true);
  });

  it('reports an MX IP listing in domainReputation only', async () => {
    const { engine } = world({ '1.2.0.192.zen.bl.test': { a: ['127.0.0.2'] } });
    const result = await engine.verify('alice@example.com', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'valid', reason: 'accepted', score: 0.99 });
    expect(result.domainReputation).toMatchObject({ isListed: true, blacklists: ['zen.bl.test'] });
  });

  it('reports free providers and typo suggestions without changing the status', async () => {
    const { engine } = world({ 'gmail.com': mx('mx1.example.com'), 'gnail.com': mx('mx1.example.com') });
    const free = await engine.verify('alice@gmail.com', { checkSmtp: false });
    expect(free).toMatchObject({ status: 'valid', isFree: true, domainSuggestion: '' });
    const typo = await engine.verify('alice@gnail.com', { checkSmtp: false });
    expect(typo).toMatchObject({ status: 'valid', isFree: false, domainSuggestion: 'gmail.com' });
  });

  it('fills hasGravatar, gravatarUrl and domainAge from the HTTP services', async () => {
    const { engine, deps, clock } = world();
    deps.fetch = async (url) => {
      if (url.startsWith('http://gravatar.test/')) return new Response('png', { status: 200 });
      const registered = new Date(clock.now() - 400 * 86_400_000).toISOString();
      return new Response(
        JSON.stringify({ events: [{ eventAction: 'registration', eventDate: registered }] }),
      );
    };
    const withHttp = new VerificationEngine(OPTIONS, deps);
    const result = await withHttp.verify('alice@example.com', { checkSmtp: false, enrich: true });
    expect(result.hasGravatar).toBe(true);
    expect(result.gravatarUrl).toMatch(/^http:\/\/gravatar\.test\/avatar\/[0-9a-f]{64}$/);
    expect(result.domainAge).toBe(400);
    expect((await engine.verify('alice@example.com', { checkSmtp: false, enrich: true })).hasGravatar).toBe(
      false,
    );
  });

  it('asks neither Gravatar nor RDAP without enrich, with SMTP or without, and leaves their fields empty', async () => {
    const { engine, http } = world();
    const verified = [
      await engine.verify('alice@example.com', { checkSmtp: true }),
      await engine.verify('bob@example.com', { checkSmtp: false }),
      ...(await engine.verifyMany(['carol@example.com', 'dave@example.com'], { checkSmtp: false })),
    ];
    expect(verified.map((r) => r.status)).toEqual(['valid', 'valid', 'valid', 'valid']);
    for (const r of verified) expect(r).toMatchObject({ hasGravatar: false, gravatarUrl: '', domainAge: 0 });
    expect(http.requests).toEqual([]);
  });

  it('asks RDAP once per domain and Gravatar once per address when a list is enriched', async () => {
    const { deps, clock } = world({ 'other.example': mx('mx1.example.com') });
    const asked: string[] = [];
    const registered = new Date(clock.now() - 30 * 86_400_000).toISOString();
    deps.fetch = async (url) => {
      asked.push(url);
      // Answers arrive later than the other addresses of the domain ask, so concurrent lookups must join.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (url.startsWith('http://gravatar.test/')) return new Response(null, { status: 404 });
      return Response.json({ events: [{ eventAction: 'registration', eventDate: registered }] });
    };
    const engine = new VerificationEngine(OPTIONS, deps);
    const emails = ['a', 'b', 'c', 'd', 'a'].flatMap((l) => [`${l}@example.com`, `${l}@other.example`]);
    const results = await engine.verifyMany(emails, { checkSmtp: false, enrich: true }, { concurrency: 8 });
    expect(results.map((r) => r.domainAge)).toEqual(emails.map(() => 30));
    const rdap = asked.filter((u) => u.startsWith('http://rdap.test/')).sort();
    expect(rdap).toEqual(['http://rdap.test/domain/example.com', 'http://rdap.test/domain/other.example']);
    expect(new Set(asked.filter((u) => u.startsWith('http://gravatar.test/'))).size).toBe(8);
    expect(asked.filter((u) => u.startsWith('http://gravatar.test/'))).toHaveLength(8);
  });

  it('adds the Gravatar and domain-age fields to results verified without them, as verify with enrich gives', async () => {
    const { deps, clock } = world({ 'gone.example': { mx: DNS_ERROR.NOT_FOUND } });
    const asked: string[] = [];
    const registered = new Date(clock.now() - 12 * 86_400_000).toISOString();
    deps.fetch = async (url) => {
      asked.push(url);
      if (url.startsWith('http://gravatar.test/')) return new Response('png', { status: 200 });
      return Response.json({ events: [{ eventAction: 'registration', eventDate: registered }] });
    };
    const plain = new VerificationEngine(OPTIONS, deps);
    const emails = ['alice@example.com', 'alice@gone.example', 'alice@[192.0.2.1]'];
    const bare = await plain.verifyMany(emails, { checkSmtp: false });
    expect(asked).toEqual([]);
    const added = await plain.addExtras(bare);
    const direct = await new VerificationEngine(OPTIONS, deps).verifyMany(emails, {
      checkSmtp: false,
      enrich: true,
    });
    const comparable = (r: VerificationResult) => ({ ...r, responseTime: 0 });
    expect(added.map(comparable)).toEqual(direct.map(comparable));
    expect(added.map((r) => [r.hasGravatar, r.domainAge])).toEqual([
      [true, 12],
      [false, 0],
      [true, 0],
    ]);
  });

  it('measures responseTime with the injected clock', async () => {
    const { deps, clock } = world();
    const resolver = deps.resolver;
    deps.resolver = {
      ...resolver,
      resolveMx: async (name) => {
        clock.advance(42);
        return resolver.resolveMx(name);
      },
      resolve4: (name) => resolver.resolve4(name),
      resolve6: (name) => resolver.resolve6(name),
    };
    const result = await new VerificationEngine(OPTIONS, deps).verify('alice@example.com', {
      checkSmtp: false,
    });
    expect(result.responseTime).toBe(42);
  });

  it('turns an unexpected failure into unknown/verification_failed instead of throwing', async () => {
    const { deps } = world();
    deps.resolver = {
      resolveMx: () => Promise.resolve(null as unknown as MxRecord[]),
      resolve4: () => Promise.resolve([]),
      resolve6: () => Promise.resolve([]),
    };
    const result = await new VerificationEngine(OPTIONS, deps).verify('alice@example.com', {
      checkSmtp: false,
    });
    expect(summary(result)).toEqual({ status: 'unknown', reason: 'verification_failed', score: 0.5 });
    expect(result.errorMessage).toMatch(/verification failed/);
  });

  it('verifies address literals by dialling the IP directly', async () => {
    const { engine, resolver, dialer } = world({}, { '192.0.2.77': mailboxHost({ mailboxes: ['alice'] }) });
    const result = await engine.verify('alice@[192.0.2.77]', { checkSmtp: true });
    expect(summary(result)).toEqual({ status: 'valid', reason: 'accepted', score: 0.99 });
    expect(dialer.attempts.get('192.0.2.77')).toBe(1);
    expect(resolver.queries).toEqual(['77.2.0.192.zen.bl.test A']);
  });
});

describe('VerificationEngine.verifyMany', () => {
  it('returns results in input order with bounded concurrency', async () => {
    const { deps } = world({ 'slow.example': mx('mx1.example.com') });
    let inFlight = 0;
    let peak = 0;
    const resolver = deps.resolver;
    deps.resolver = {
      resolveMx: async (name) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return resolver.resolveMx(name);
      },
      resolve4: (name) => resolver.resolve4(name),
      resolve6: (name) => resolver.resolve6(name),
    };
    const engine = new VerificationEngine({ ...OPTIONS, domainCacheTtlMs: 0 }, deps);
    const emails = [
      'a@example.com',
      'bad',
      'info@example.com',
      'b@nxdomain.example',
      'c@slow.example',
      'd@example.com',
    ];
    const results = await engine.verifyMany(emails, { checkSmtp: false }, { concurrency: 2 });
    expect(results.map((r) => `${r.email} ${r.status}`)).toEqual([
      'a@example.com valid',
      'bad invalid',
      'info@example.com role',
      'b@nxdomain.example invalid',
      'c@slow.example valid',
      'd@example.com valid',
    ]);
    expect(peak).toBeLessThanOrEqual(2);
    expect(peak).toBeGreaterThan(0);
  });

  it('gives every address on a domain the same domain flags, and each address its own role and verdict', async () => {
    const { engine } = world({ 'gnail.com': mx('mx1.example.com') });
    const results = await engine.verifyMany(
      ['info@gnail.com', 'alice@gnail.com', 'sales@gnail.com', 'bob@gnail.com'],
      { checkSmtp: false },
      { concurrency: 2, normalised: true },
    );
    expect(results.map((r) => [r.email, r.status, r.reason, r.isRole, r.domainSuggestion, r.isFree])).toEqual(
      [
        ['info@gnail.com', 'role', 'role_account', true, 'gmail.com', false],
        ['alice@gnail.com', 'valid', 'mx_found', false, 'gmail.com', false],
        ['sales@gnail.com', 'role', 'role_account', true, 'gmail.com', false],
        ['bob@gnail.com', 'valid', 'mx_found', false, 'gmail.com', false],
      ],
    );
  });

  it('handles an empty list', async () => {
    expect(await world().engine.verifyMany([], { checkSmtp: true })).toEqual([]);
  });

  it('settles addresses from cached answers with the result it gets by asking', async () => {
    const { deps, resolver } = world({
      'listed.example': mx('mx1.example.com'),
      'listed.example.dbl.bl.test': { a: ['127.0.1.2'] },
      'none.example': { mx: DNS_ERROR.NOT_FOUND },
    });
    const registered = new Date(deps.clock.now() - 400 * 86_400_000).toISOString();
    deps.fetch = fakeFetch({
      'http://rdap.test/': () =>
        Response.json({ events: [{ eventAction: 'registration', eventDate: registered }] }),
    }).fetch;
    const engine = new VerificationEngine({ ...OPTIONS, gravatarBaseUrl: '' }, deps);
    const addresses = (role: string, other: string) =>
      [role, other].flatMap((l) =>
        ['example.com', 'listed.example', 'none.example', '[192.0.2.1]'].map((d) => `${l}@${d}`),
      );
    const enriched = { checkSmtp: false, enrich: true };
    const first = await engine.verifyMany([...addresses('info', 'alice'), 'bad'], enriched);
    const asked = resolver.queries.length;
    // The same domains again: every answer is cached, so nothing is asked and every verdict is the same.
    const again = await engine.verifyMany([...addresses('sales', 'bob'), 'bad'], enriched);
    expect(resolver.queries.length).toBe(asked);
    const comparable = (r: VerificationResult) => ({ ...r, email: r.email.split('@')[1], responseTime: 0 });
    expect(again.map(comparable)).toEqual(first.map(comparable));
    expect(first.map((r) => `${r.status}/${r.reason}/${r.domainAge}`)).toEqual([
      'role/role_account/400',
      'risky/domain_listed/400',
      'invalid/domain_not_found/0',
      'role/role_account/0',
      'valid/mx_found/400',
      'risky/domain_listed/400',
      'invalid/domain_not_found/0',
      'valid/mx_found/0',
      'invalid/invalid_syntax/0',
    ]);
  });

  it('settles from cached answers no longer than the first of them stays cached, with the age of the day', async () => {
    const { deps, resolver, clock } = world();
    const day = 86_400_000;
    const registered = new Date(clock.now() - 400 * day).toISOString();
    deps.fetch = fakeFetch({
      'http://rdap.test/': () =>
        Response.json({ events: [{ eventAction: 'registration', eventDate: registered }] }),
    }).fetch;
    // Every answer about example.com is cached at the first verification, for three days.
    const engine = new VerificationEngine(
      { ...OPTIONS, gravatarBaseUrl: '', domainCacheTtlMs: 3 * day },
      deps,
    );
    const verify = async (email: string) => {
      const [result] = await engine.verifyMany([email], { checkSmtp: false, enrich: true });
      return `${result!.status} ${result!.domainAge} MX asked ${resolver.count('example.com', 'MX')}`;
    };
    expect(await verify('a@example.com')).toBe('valid 400 MX asked 1');
    clock.advance(day);
    expect(await verify('b@example.com')).toBe('valid 401 MX asked 1');
    clock.advance(day);
    expect(await verify('c@example.com')).toBe('valid 402 MX asked 1');
    clock.advance(day - 1);
    expect(await verify('d@example.com')).toBe('valid 402 MX asked 1');
    // The answers expire together three days after they were cached, whenever they were last used.
    clock.advance(1);
    expect(await verify('e@example.com')).toBe('valid 403 MX asked 2');
  });

  it('asks again for an answer that failed instead of settling from the cache', async () => {
    const { engine, resolver } = world({ 'example.com.dbl.bl.test': { a: DNS_ERROR.SERVFAIL } });
    await engine.verifyMany(['a@example.com'], { checkSmtp: false });
    await engine.verifyMany(['a@example.com'], { checkSmtp: false });
    expect(resolver.queries.filter((q) => q.startsWith('example.com.dbl.bl.test'))).toHaveLength(2);
  });
});

describe('status precedence and scores', () => {
  it('follows invalid > disposable > risky > unknown > catchall > role > valid', () => {
    expect(STATUS_PRECEDENCE).toEqual([
      'invalid',
      'disposable',
      'risky',
      'unknown',
      'catchall',
      'role',
      'valid',
    ]);
    const all = VERIFICATION_STATUSES.map((status) => ({ status, reason: REASONS[0] }));
    for (let i = 0; i < STATUS_PRECEDENCE.length; i++) {
      const remaining = all.filter((f) => STATUS_PRECEDENCE.indexOf(f.status) >= i);
      expect(decide(remaining).status).toBe(STATUS_PRECEDENCE[i]);
      expect(decide([...remaining].reverse()).status).toBe(STATUS_PRECEDENCE[i]);
    }
  });

  it('scores each status, valid by whether SMTP confirmed the mailbox', () => {
    expect(scoreFor('valid', true)).toBe(0.99);
    expect(scoreFor('valid', false)).toBe(0.9);
    expect(scoreFor('catchall', true)).toBe(0.7);
    expect(scoreFor('role', true)).toBe(0.6);
    expect(scoreFor('unknown', false)).toBe(0.5);
    expect(scoreFor('risky', true)).toBe(0.3);
    expect(scoreFor('disposable', false)).toBe(0.3);
    expect(scoreFor('invalid', true)).toBe(0.1);
  });

  it('lets catchall beat role, and a rejected role mailbox be invalid', async () => {
    const catchAll = world({}, { '192.0.2.1': mailboxHost({ catchAll: true }) });
    expect((await catchAll.engine.verify('sales@example.com', { checkSmtp: true })).status).toBe('catchall');
    const { engine } = world();
    expect((await engine.verify('sales@example.com', { checkSmtp: true })).status).toBe('invalid');
    expect((await engine.verify('info@example.com', { checkSmtp: true })).status).toBe('role');
  });
});

describe('fallback results (what an address gets without being verified)', () => {
  it('is unknown/verification_failed at the unknown score, with the domain and nothing else found', () => {
    const result = fallbackResult('jane@Files.test');
    expect(summary(result)).toEqual({ status: 'unknown', reason: 'verification_failed', score: 0.5 });
    expect(result).toMatchObject({ email: 'jane@Files.test', domain: 'files.test', mxRecords: [] });
    expect(Object.values(result).filter((v) => v === true)).toEqual([]);
    expect(fallbackResult('jane@files.test', '').domain).toBe('');
  });

  it('is invalid at the invalid score for input that is no address, as the engine answers it', async () => {
    const { engine } = world();
    for (const [input, reason] of [
      ['', 'missing_email'],
      ['not an address', 'invalid_syntax'],
    ] as const) {
      const verified = await engine.verify(input, { checkSmtp: false });
      expect(syntaxFailureResult(input, reason)).toEqual({ ...verified, errorMessage: '', responseTime: 0 });
      expect(summary(verified)).toEqual({ status: 'invalid', reason, score: 0.1 });
    }
  });
});

// A fake random that is deterministic keeps the catch-all probe address stable; checked here so a change of
// the default wiring cannot slip a real network dependency into these unit tests.
describe('test wiring', () => {
  it('injects every dependency', () => {
    const { deps } = world();
    expect(Object.keys(deps).sort()).toEqual(['clock', 'dial', 'fetch', 'random', 'resolver']);
    expect(sequenceRandom([0.25])()).toBe(0.25);
  });
});

describe('VerificationEngine: domain facts shared between engines of one installation', () => {
  /** An engine of its own (own caches, own DNS with no zones: anything it asks is NXDOMAIN), same clock. */
  function other(fakes: ReturnType<typeof world>, options: Partial<VerificationOptions> = {}) {
    const resolver = new FakeResolver({});
    const engine = new VerificationEngine({ ...OPTIONS, ...options }, { ...fakes.deps, resolver });
    return { engine, resolver };
  }
  type Shared = [string, DomainFacts, number];

  it('tells what it found in the DNS, and another engine verifies from it without asking its own DNS', async () => {
    const fakes = world();
    const shared: Shared[] = [];
    fakes.engine.shareDomainFacts((...fact) => shared.push(fact));
    expect(summary(await fakes.engine.verify('alice@example.com', { checkSmtp: false }))).toMatchObject({
      status: 'valid',
    });
    expect(shared).toEqual([
      [
        'example.com',
        {
          kind: 'deliverable',
          mxRecords: ['mx1.example.com'],
          hosts: [{ exchange: 'mx1.example.com', priority: 10, addresses: ['192.0.2.1'] }],
          implicitMx: false,
        },
        OPTIONS.domainCacheTtlMs ?? DEFAULT_TUNING.domainCacheTtlMs,
      ],
    ]);

    const b = other(fakes);
    expect(b.engine.learnDomainFacts(...shared[0]!)).toBe(true);
    const result = await b.engine.verify('bob@Example.com', { checkSmtp: false });
    expect(summary(result)).toEqual({ status: 'valid', reason: 'mx_found', score: 0.9 });
    expect(result.mxRecords).toEqual(['mx1.example.com']);
    const many = await b.engine.verifyMany(['carol@example.com', 'dave@example.com'], { checkSmtp: false });
    expect(many.map((r) => r.reason)).toEqual(['mx_found', 'mx_found']);
    expect(b.resolver.count('example.com', 'MX')).toBe(0);
  });

  it('keeps learnt facts no longer than their time to live, then asks its own DNS', async () => {
    const fakes = world();
    const b = other(fakes);
    const facts: DomainFacts = {
      kind: 'deliverable',
      mxRecords: ['mx1.example.com'],
      hosts: [{ exchange: 'mx1.example.com', priority: 10, addresses: ['192.0.2.1'] }],
      implicitMx: false,
    };
    b.engine.learnDomainFacts('example.com', facts, 60_000);
    expect((await b.engine.verify('bob@example.com', { checkSmtp: false })).reason).toBe('mx_found');
    fakes.clock.advance(60_001);
    // Its own DNS knows no example.com.
    expect((await b.engine.verify('bob@example.com', { checkSmtp: false })).reason).toBe('domain_not_found');
    expect(b.resolver.count('example.com', 'MX')).toBe(1);
  });

  it('keeps what it found itself over what it is told, and does not pass on what it learnt', async () => {
    const fakes = world();
    const told: Shared[] = [];
    fakes.engine.shareDomainFacts((...fact) => told.push(fact));
    await fakes.engine.verify('alice@example.com', { checkSmtp: false });
    told.length = 0;
    const elsewhere: DomainFacts = {
      kind: 'undeliverable',
      reason: 'null_mx',
      mxRecords: [],
      message: 'example.com publishes a null MX record',
    };
    expect(fakes.engine.learnDomainFacts('example.com', elsewhere, 60_000)).toBe(false);
    expect((await fakes.engine.verify('bob@example.com', { checkSmtp: false })).reason).toBe('mx_found');
    expect(fakes.engine.learnDomainFacts('other.example', elsewhere, 60_000)).toBe(true);
    expect((await fakes.engine.verify('bob@other.example', { checkSmtp: false })).reason).toBe('null_mx');
    expect(told).toEqual([]);
  });

  it('shares no transient failure (the next verification asks again)', async () => {
    const fakes = world({ 'flaky.example': { mx: DNS_ERROR.TIMEOUT } });
    const told: Shared[] = [];
    fakes.engine.shareDomainFacts((...fact) => told.push(fact));
    expect((await fakes.engine.verify('x@flaky.example', { checkSmtp: false })).status).toBe('unknown');
    expect(told).toEqual([]);
    const b = other(fakes);
    expect(
      b.engine.learnDomainFacts('flaky.example', { kind: 'dns_error', message: 'timeout' }, 60_000),
    ).toBe(false);
  });

  it('applies the private-network rule to learnt facts as to its own', async () => {
    const fakes = world();
    const strict = other(fakes, { smtpAllowPrivateNetworks: false });
    strict.engine.learnDomainFacts(
      'inside.example',
      {
        kind: 'deliverable',
        mxRecords: ['mx.inside.example'],
        hosts: [{ exchange: 'mx.inside.example', priority: 10, addresses: ['10.0.0.5', '127.0.0.1'] }],
        implicitMx: false,
      },
      60_000,
    );
    for (const checkSmtp of [false, true]) {
      const result = await strict.engine.verify('x@inside.example', { checkSmtp });
      expect(summary(result)).toEqual({ status: 'invalid', reason: 'no_mx_records', score: 0.1 });
    }
    expect(fakes.dialer.attempts.size).toBe(0);
  });
});
