// The boundary rule has no test-file exception for lib:verification; STYLE allows `testing` from tests.
import { eventually, MailWorld } from '@emailverify/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VerificationEngine } from './engine';
import type { VerificationOptions } from './options';

/**
 * The engine end to end against the mail world: real DNS (c-ares to the world's server), real TCP SMTP
 * sessions on 127.0.0.x and real HTTP for gravatar and RDAP. Nothing leaves 127.0.0.0/8.
 */
describe('VerificationEngine against the mail world', () => {
  let world: MailWorld;

  function options(overrides: Partial<VerificationOptions> = {}): VerificationOptions {
    return {
      dnsServers: [world.dnsServers],
      dnsTimeoutMs: 400,
      dnsTries: 1,
      smtpPort: world.smtpPort,
      smtpHeloName: 'probe.verifier.test',
      smtpMailFrom: 'verify@verifier.test',
      smtpConnectTimeoutMs: 2000,
      smtpCommandTimeoutMs: 2000,
      smtpMaxConcurrencyPerMx: 5,
      smtpSemaphoreTimeoutMs: 2000,
      dnsblIpZones: ['zen.test'],
      dnsblDomainZones: ['dbl.test'],
      gravatarBaseUrl: world.gravatarBaseUrl,
      rdapBaseUrl: world.rdapBaseUrl,
      httpTimeoutMs: 2000,
      // The mail world lives on loopback.
      smtpAllowPrivateNetworks: true,
      ...overrides,
    };
  }

  /** A fresh engine per test, so no in-memory cache carries a verdict from one test to the next. */
  function engine(overrides: Partial<VerificationOptions> = {}): VerificationEngine {
    return new VerificationEngine(options(overrides));
  }

  const smtp = { checkSmtp: true };
  const enriched = { checkSmtp: true, enrich: true };

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('accepts.test', {
        mx: [{ priority: 10, host: 'mx.accepts.test', smtp: { mailboxes: ['alice', 'info'] } }],
      })
      .domain('full.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.full.test',
            smtp: { rcptReply: { code: 552, text: '5.2.2 Mailbox full' } },
          },
        ],
      })
      .domain('quota.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.quota.test',
            smtp: { rcptReply: { code: 452, text: '4.2.2 Over quota' } },
          },
        ],
      })
      .domain('catchall.test', { mx: [{ priority: 10, host: 'mx.catchall.test', smtp: { catchAll: true } }] })
      .domain('greylist.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.greylist.test',
            smtp: { rcptReply: { code: 450, text: '4.7.1 Greylisted' } },
          },
        ],
      })
      .domain('banner554.test', {
        mx: [
          {
            priority: 10,
            host: 'mx1.banner554.test',
            smtp: { banner: { code: 554, text: '5.7.1 No probes' } },
          },
          { priority: 20, host: 'mx2.banner554.test', smtp: { mailboxes: ['alice'] } },
        ],
      })
      .domain('refusing.test', {
        mx: [
          { priority: 10, host: 'mx1.refusing.test', smtp: 'refused' },
          { priority: 20, host: 'mx2.refusing.test', smtp: 'refused' },
        ],
      })
      .domain('busy.test', {
        mx: [
          { priority: 10, host: 'mx1.busy.test', smtp: { banner: { code: 421, text: '4.3.2 Too busy' } } },
          { priority: 20, host: 'mx2.busy.test', smtp: { banner: { code: 421, text: '4.3.2 Too busy' } } },
        ],
      })
      .domain('silent.test', { mx: [{ priority: 10, host: 'mx.silent.test', smtp: { silent: true } }] })
      .domain('failover.test', {
        mx: [
          { priority: 10, host: 'mx1.failover.test', smtp: 'refused' },
          { priority: 20, host: 'mx2.failover.test', smtp: { mailboxes: ['alice'] } },
        ],
      })
      .domain('implicit.test', { a: { mailboxes: ['alice'] } })
      .domain('nullmx.test', { nullMx: true })
      .domain('gone.test', { nxdomain: true })
      .domain('slowdns.test', { dnsTimeout: true })
      .domain('servfail.test', { servfail: true })
      .domain('nothing.test', {})
      .domain('ghostmx.test', { mx: [{ priority: 10, host: 'ghost.ghostmx.test', smtp: 'no-address' }] })
      .domain('mailinator.com', {
        mx: [{ priority: 10, host: 'mx.mailinator.com', smtp: { catchAll: true } }],
      })
      .domain('spammy.test', {
        mx: [{ priority: 10, host: 'mx.spammy.test', smtp: { catchAll: false, mailboxes: ['alice'] } }],
        listedIn: ['dbl.test'],
      })
      .domain('iplisted.test', {
        mx: [{ priority: 10, host: 'mx.iplisted.test', smtp: { mailboxes: ['alice'] } }],
      })
      .domain('gmail.com', {
        mx: [{ priority: 5, host: 'gmail-smtp-in.l.google.com', smtp: { mailboxes: ['alice'] } }],
      })
      .domain('gnail.com', { mx: [{ priority: 10, host: 'mx.gnail.com', smtp: { catchAll: true } }] })
      .domain('xn--bcher-kva.de', {
        mx: [{ priority: 10, host: 'mx.xn--bcher-kva.de', smtp: { mailboxes: ['anna'] } }],
      })
      .domain('held.test', {
        mx: [{ priority: 10, host: 'mx.held.test', smtp: { mailboxes: ['alice', 'bob'], holdMs: 1500 } }],
      })
      .domain('extras.test', {
        mx: [{ priority: 10, host: 'mx.extras.test', smtp: { mailboxes: ['alice'] } }],
        createdAt: new Date(Date.now() - 1000 * 86_400_000),
      })
      .registerGravatar('alice@extras.test');
    const listedIp = world.hostAddress('mx.iplisted.test');
    if (!listedIp) throw new Error('mx.iplisted.test has no address');
    world.listIp('zen.test', listedIp);
    await world.ready();
  });

  afterAll(async () => {
    await world?.stop();
  });

  beforeEach(() => {
    world.setHttpDown(false);
    world.resetCounters();
  });

  describe('SMTP outcomes', () => {
    it('confirms an existing mailbox: valid/accepted, after EHLO, MAIL, RCPT, a catch-all RCPT and QUIT', async () => {
      const result = await engine().verify('alice@accepts.test', smtp);
      expect(result).toMatchObject({
        status: 'valid',
        reason: 'accepted',
        score: 0.99,
        isDeliverable: true,
        isCatchall: false,
        smtpCheck: true,
        smtpValid: true,
        validFormat: true,
        validDomain: true,
        validMx: true,
        mxRecords: ['mx.accepts.test'],
        smtpResponse: '250 2.1.5 Ok',
      });
      const transcript = world.smtpTranscript('mx.accepts.test');
      expect(transcript.slice(0, 3)).toEqual([
        'EHLO probe.verifier.test',
        'MAIL FROM:<verify@verifier.test>',
        'RCPT TO:<alice@accepts.test>',
      ]);
      expect(transcript[3]).toMatch(/^RCPT TO:<[a-z0-9]{20}@accepts\.test>$/);
      expect(transcript[4]).toBe('QUIT');
      expect(world.smtpConnections('mx.accepts.test')).toBe(1);
    });

    it('reports an unknown mailbox (550) as invalid/mailbox_not_found', async () => {
      const result = await engine().verify('nobody@accepts.test', smtp);
      expect(result).toMatchObject({
        status: 'invalid',
        reason: 'mailbox_not_found',
        score: 0.1,
        isDeliverable: false,
      });
      expect(result.smtpResponse).toMatch(/^550 5\.1\.1/);
    });

    it('reports 552 as invalid/mailbox_full', async () => {
      expect(await engine().verify('alice@full.test', smtp)).toMatchObject({
        status: 'invalid',
        reason: 'mailbox_full',
      });
    });

    it('reports 452 4.2.2 as unknown/mailbox_full', async () => {
      expect(await engine().verify('alice@quota.test', smtp)).toMatchObject({
        status: 'unknown',
        reason: 'mailbox_full',
        score: 0.5,
      });
    });

    it('detects a catch-all domain and probes it only once per domain', async () => {
      const verifier = engine();
      const first = await verifier.verify('anyone@catchall.test', smtp);
      expect(first).toMatchObject({ status: 'catchall', reason: 'catch_all', score: 0.7, isCatchall: true });
      const second = await verifier.verify('someone@catchall.test', smtp);
      expect(second.status).toBe('catchall');
      const rcpts = world.smtpTranscript('mx.catchall.test').filter((line) => line.startsWith('RCPT'));
      expect(rcpts).toHaveLength(3);
    });

    it('reports a 450 answer as unknown/greylisted', async () => {
      expect(await engine().verify('alice@greylist.test', smtp)).toMatchObject({
        status: 'unknown',
        reason: 'greylisted',
      });
    });

    it('reports a 554 greeting as unknown/smtp_blocked and does not try the next MX', async () => {
      const result = await engine().verify('alice@banner554.test', smtp);
      expect(result).toMatchObject({ status: 'unknown', reason: 'smtp_blocked', smtpCheck: true });
      expect(result.smtpResponse).toBe('554 5.7.1 No probes');
      expect(world.smtpConnections('mx2.banner554.test')).toBe(0);
    });

    it('reports every MX refusing the connection as unknown/smtp_unreachable', async () => {
      const result = await engine().verify('alice@refusing.test', smtp);
      expect(result).toMatchObject({
        status: 'unknown',
        reason: 'smtp_unreachable',
        smtpCheck: false,
        validMx: true,
      });
    });

    it('reports every MX greeting with 421 as unknown/smtp_unreachable', async () => {
      const result = await engine().verify('alice@busy.test', smtp);
      expect(result).toMatchObject({ status: 'unknown', reason: 'smtp_unreachable' });
      expect(world.smtpConnections('mx1.busy.test')).toBe(1);
      expect(world.smtpConnections('mx2.busy.test')).toBe(1);
    });

    it('reports a server that never greets as unknown/smtp_timeout', async () => {
      const result = await engine({ smtpCommandTimeoutMs: 300 }).verify('alice@silent.test', smtp);
      expect(result).toMatchObject({ status: 'unknown', reason: 'smtp_timeout' });
    });

    it('moves to the second MX when the first refuses', async () => {
      const result = await engine().verify('alice@failover.test', smtp);
      expect(result).toMatchObject({ status: 'valid', reason: 'accepted' });
      expect(world.smtpConnections('mx2.failover.test')).toBe(1);
    });

    it('falls back to MX-only (unknown, mx_only_verification_semaphore_timeout) when the per-MX cap is exhausted', async () => {
      const verifier = engine({
        smtpMaxConcurrencyPerMx: 1,
        smtpSemaphoreTimeoutMs: 100,
        smtpCommandTimeoutMs: 5000,
      });
      const holding = verifier.verify('alice@held.test', smtp);
      // The first session holds its slot until the world answers QUIT, holdMs after its last RCPT.
      await eventually(
        () => expect(world.smtpTranscript('mx.held.test')).toContainEqual(expect.stringMatching(/^RCPT/)),
        { intervalMs: 10 },
      );
      const starved = await verifier.verify('bob@held.test', smtp);
      expect(starved).toMatchObject({
        status: 'unknown',
        reason: 'mx_only_verification_semaphore_timeout',
        score: 0.5,
        smtpCheck: false,
        validMx: true,
      });
      expect(world.smtpConnections('mx.held.test')).toBe(1);
      expect(await holding).toMatchObject({ status: 'valid', reason: 'accepted' });
    });
  });

  describe('DNS outcomes', () => {
    it('treats a domain with only an A record as its own mail host', async () => {
      const result = await engine().verify('alice@implicit.test', smtp);
      expect(result).toMatchObject({ status: 'valid', reason: 'accepted', mxRecords: ['implicit.test'] });
      expect(world.smtpConnections('implicit.test')).toBe(1);
    });

    it.each([
      ['nullmx.test', 'invalid', 'null_mx'],
      ['gone.test', 'invalid', 'domain_not_found'],
      ['nothing.test', 'invalid', 'no_mx_records'],
      ['ghostmx.test', 'invalid', 'no_mx_records'],
      ['slowdns.test', 'unknown', 'dns_error'],
      ['servfail.test', 'unknown', 'dns_error'],
    ])('classifies %s as %s/%s without any SMTP connection', async (domain, status, reason) => {
      const result = await engine().verify(`alice@${domain}`, smtp);
      expect(result).toMatchObject({ status, reason, smtpCheck: false, isDeliverable: false });
      expect(result.errorMessage).not.toBe('');
      expect(world.smtpConnections()).toBe(0);
    });
  });

  describe('lists and reputation', () => {
    it('reports a role address as role/role_account', async () => {
      expect(await engine().verify('info@accepts.test', smtp)).toMatchObject({
        status: 'role',
        reason: 'role_account',
        score: 0.6,
        isRole: true,
      });
    });

    it('reports a disposable domain as disposable/disposable_domain without probing it', async () => {
      const result = await engine().verify('someone@mailinator.com', smtp);
      expect(result).toMatchObject({
        status: 'disposable',
        reason: 'disposable_domain',
        score: 0.3,
        isDisposable: true,
      });
      expect(world.smtpConnections()).toBe(0);
    });

    it('makes a domain on a domain blocklist risky/domain_listed', async () => {
      const result = await engine().verify('alice@spammy.test', smtp);
      expect(result).toMatchObject({ status: 'risky', reason: 'domain_listed', score: 0.3 });
      expect(result.domainReputation).toMatchObject({
        isListed: true,
        blacklists: ['dbl.test'],
        checked: true,
      });
    });

    it('reports a listed MX address in domainReputation only', async () => {
      const result = await engine().verify('alice@iplisted.test', smtp);
      expect(result).toMatchObject({ status: 'valid', reason: 'accepted' });
      expect(result.domainReputation).toEqual({
        mxIp: world.hostAddress('mx.iplisted.test'),
        isListed: true,
        blacklists: ['zen.test'],
        checked: true,
      });
    });

    it('marks free providers and suggests a fix for a typo domain', async () => {
      expect(await engine().verify('alice@gmail.com', smtp)).toMatchObject({
        status: 'valid',
        isFree: true,
        domainSuggestion: '',
      });
      expect(await engine().verify('alice@gnail.com', { checkSmtp: false })).toMatchObject({
        isFree: false,
        domainSuggestion: 'gmail.com',
      });
    });

    it('converts an IDN domain to punycode for DNS and SMTP', async () => {
      const result = await engine().verify('anna@Bücher.de', smtp);
      expect(result).toMatchObject({
        email: 'anna@xn--bcher-kva.de',
        domain: 'xn--bcher-kva.de',
        status: 'valid',
      });
      expect(world.smtpTranscript('mx.xn--bcher-kva.de')).toContain('RCPT TO:<anna@xn--bcher-kva.de>');
    });
  });

  describe('extras', () => {
    it('reports gravatar and domain age from the HTTP services', async () => {
      const result = await engine().verify('Alice@extras.test', enriched);
      expect(result).toMatchObject({ status: 'valid', reason: 'accepted', hasGravatar: true });
      expect(result.gravatarUrl).toMatch(new RegExp(`^${world.gravatarBaseUrl}/[0-9a-f]{64}$`));
      expect(result.domainAge).toBeGreaterThanOrEqual(999);
      expect(result.domainAge).toBeLessThanOrEqual(1000);
    });

    it('changes nothing but hasGravatar and domainAge while the HTTP services are down', async () => {
      const up = await engine().verify('alice@extras.test', enriched);
      world.setHttpDown(true);
      const down = await engine().verify('alice@extras.test', enriched);
      expect(down).toMatchObject({ hasGravatar: false, gravatarUrl: '', domainAge: 0 });
      expect(world.httpRequests()).toBeGreaterThan(0);
      const strip = ({
        hasGravatar: _g,
        gravatarUrl: _u,
        domainAge: _a,
        responseTime: _t,
        ...rest
      }: typeof up) => rest;
      expect(strip(down)).toEqual(strip(up));
    });

    it('makes no HTTP request when the base URLs are empty', async () => {
      const result = await engine({ gravatarBaseUrl: '', rdapBaseUrl: '' }).verify(
        'alice@extras.test',
        enriched,
      );
      expect(result).toMatchObject({ status: 'valid', hasGravatar: false, domainAge: 0 });
      expect(world.httpRequests()).toBe(0);
    });

    it('makes no HTTP request without enrich, though the services are configured', async () => {
      const result = await engine().verify('alice@extras.test', smtp);
      expect(result).toMatchObject({ status: 'valid', reason: 'accepted', hasGravatar: false, domainAge: 0 });
      expect(world.httpRequests()).toBe(0);
    });
  });

  describe('without SMTP', () => {
    it('opens no SMTP connection at all and answers from DNS alone', async () => {
      const verifier = engine();
      const results = await verifier.verifyMany(
        [
          'alice@accepts.test',
          'anyone@catchall.test',
          'info@accepts.test',
          'x@refusing.test',
          'x@gone.test',
          'bad@@x',
        ],
        { checkSmtp: false },
        { concurrency: 3 },
      );
      expect(results.map((r) => [r.email, r.status, r.reason, r.score])).toEqual([
        ['alice@accepts.test', 'valid', 'mx_found', 0.9],
        ['anyone@catchall.test', 'valid', 'mx_found', 0.9],
        ['info@accepts.test', 'role', 'role_account', 0.6],
        ['x@refusing.test', 'valid', 'mx_found', 0.9],
        ['x@gone.test', 'invalid', 'domain_not_found', 0.1],
        ['bad@@x', 'invalid', 'invalid_syntax', 0.1],
      ]);
      expect(results.every((r) => !r.smtpCheck && !r.isCatchall)).toBe(true);
      expect(world.smtpConnections()).toBe(0);
    });
  });
});
