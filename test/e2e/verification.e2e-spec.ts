import { type Account, MailWorld, TestSuite } from '@emailverify/testing';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('verification endpoints against the mail world', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    const mailbox = (host: string, mailboxes = ['jane', 'info', 'bob']) => ({
      priority: 10,
      host,
      smtp: { mailboxes },
    });
    world
      .domain('ok.test', { mx: [mailbox('mx.ok.test')], createdAt: new Date('2000-01-01T00:00:00Z') })
      .domain('quiet.test', { mx: [mailbox('mx.quiet.test')] })
      .domain('full.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.full.test',
            smtp: { rcptReply: { code: 552, text: '5.2.2 Mailbox full' } },
          },
        ],
      })
      .domain('catchall.test', { mx: [{ priority: 10, host: 'mx.catchall.test', smtp: { catchAll: true } }] })
      .domain('grey.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.grey.test',
            smtp: { rcptReply: { code: 450, text: '4.7.1 Greylisted, try later' } },
          },
        ],
      })
      .domain('blocked.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.blocked.test',
            smtp: { banner: { code: 554, text: '5.7.1 No SMTP service here' } },
          },
        ],
      })
      .domain('down.test', {
        mx: [
          { priority: 10, host: 'mx1.down.test', smtp: 'refused' },
          { priority: 20, host: 'mx2.down.test', smtp: 'refused' },
        ],
      })
      .domain('failover.test', {
        mx: [
          { priority: 10, host: 'mx1.failover.test', smtp: 'refused' },
          { priority: 20, host: 'mx2.failover.test', smtp: { mailboxes: ['jane'] } },
        ],
      })
      .domain('amx.test', { a: { mailboxes: ['jane'] } })
      .domain('nullmx.test', { nullMx: true })
      .domain('nx.test', { nxdomain: true })
      .domain('slowdns.test', { dnsTimeout: true })
      .domain('listed.test', { mx: [mailbox('mx.listed.test')], listedIn: ['dbl.test'] })
      .domain('gmail.com', { mx: [mailbox('mx.gmail.com')] })
      .domain('gmial.com', { mx: [mailbox('mx.gmial.com')] })
      .domain('xn--bcher-kva.test', { mx: [mailbox('mx.xn--bcher-kva.test')] })
      .domain('mailinator.com', { mx: [mailbox('mx.mailinator.com')] })
      .domain('yopmail.com', { dnsTimeout: true })
      .domain('inside.test', { mx: [mailbox('mx.inside.test')] })
      .domain('busy.test', {
        mx: [{ priority: 10, host: 'mx.busy.test', smtp: { mailboxes: ['a', 'b'], holdMs: 1500 } }],
      })
      .domain('bulk.test', { mx: [mailbox('mx.bulk.test')] });
    world.registerGravatar('jane@ok.test');
    suite = await TestSuite.start({
      world,
      env: {
        DNS_TIMEOUT_MS: '500',
        SMTP_CONNECT_TIMEOUT_MS: '1000',
        SMTP_COMMAND_TIMEOUT_MS: '2000',
        SMTP_MAX_CONCURRENCY_PER_MX: '1',
        SMTP_SEMAPHORE_TIMEOUT_MS: '300',
        DNSBL_DOMAIN_ZONES: 'dbl.test',
        DNSBL_IP_ZONES: 'zen.test',
        GRAVATAR_BASE_URL: world.gravatarBaseUrl,
        RDAP_BASE_URL: world.rdapBaseUrl,
      },
    });
    account = await suite.createAccount({ credits: 10_000 });
  });
  afterAll(async () => suite?.stop());

  const single = (
    email: string,
    extra: Record<string, unknown> = {},
    style?: 'legacy' | 'current',
    key = account.apiKey,
  ) => suite.call('/v1/verify/single', { key, style, body: { email, ...extra } });
  const balance = async (key = account.apiKey) =>
    (await suite.call('/v1/credits', { key })).json.data.credits_balance as number;

  describe('mailbox verdicts', () => {
    it('confirms an existing mailbox over SMTP: valid, accepted, 0.99', async () => {
      const res = await single('jane@ok.test', { check_smtp: true });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ success: true, code: '0' });
      expect(res.json.data).toMatchObject({
        email: 'jane@ok.test',
        status: 'valid',
        reason: 'accepted',
        score: 0.99,
        smtp_check: true,
        is_deliverable: true,
        domain: 'ok.test',
        mx_records: ['mx.ok.test'],
        credits_used: 1,
      });
      expect(world.smtpTranscript('mx.ok.test').some((line) => /^RCPT TO:<jane@ok\.test>/i.test(line))).toBe(
        true,
      );
    });

    it('makes no SMTP connection at all without check_smtp: valid, mx_found, 0.90', async () => {
      world.resetCounters();
      const res = await single('bob@quiet.test');
      expect(res.json.data).toMatchObject({
        status: 'valid',
        reason: 'mx_found',
        score: 0.9,
        smtp_check: false,
        is_catchall: false,
      });
      expect(world.smtpConnections()).toBe(0);
    });

    it.each([
      ['nobody@ok.test', 'invalid', 'mailbox_not_found'],
      ['anyone@full.test', 'invalid', 'mailbox_full'],
      ['anyone@grey.test', 'unknown', 'greylisted'],
      ['anyone@blocked.test', 'unknown', 'smtp_blocked'],
      ['anyone@down.test', 'unknown', 'smtp_unreachable'],
      ['jane@failover.test', 'valid', 'accepted'],
      ['jane@amx.test', 'valid', 'accepted'],
    ])('%s with SMTP: %s %s', async (email, status, reason) => {
      const res = await single(email, { check_smtp: true });
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({ status, reason });
    });

    it('reports a catch-all domain', async () => {
      const res = await single('whoever@catchall.test', { check_smtp: true });
      expect(res.json.data).toMatchObject({
        status: 'catchall',
        reason: 'catch_all',
        is_catchall: true,
        score: 0.7,
      });
    });

    it('verifies a domain without MX against its A record', async () => {
      world.resetCounters();
      await single('jane@amx.test', { check_smtp: true, force_refresh: true });
      expect(world.smtpConnections()).toBeGreaterThan(0);
      expect(world.smtpTranscript().some((line) => /RCPT TO:<jane@amx\.test>/i.test(line))).toBe(true);
    });

    it.each([
      ['x@nullmx.test', 'invalid', 'null_mx'],
      ['x@nx.test', 'invalid', 'domain_not_found'],
      ['x@slowdns.test', 'unknown', 'dns_error'],
    ])('%s: %s %s', async (email, status, reason) => {
      expect((await single(email)).json.data).toMatchObject({ status, reason });
    });
  });

  describe('flags, lists and reputation', () => {
    it('marks a role address', async () => {
      expect((await single('info@ok.test')).json.data).toMatchObject({
        status: 'role',
        score: 0.6,
        is_role: true,
      });
    });

    it('marks a disposable domain', async () => {
      expect((await single('temp@mailinator.com')).json.data).toMatchObject({
        status: 'disposable',
        score: 0.3,
        is_disposable: true,
      });
    });

    it('keeps a disposable domain whose DNS fails disposable, charged, in single, bulk and file jobs', async () => {
      const b0 = await balance();
      const one = await single('disp@yopmail.com');
      expect(one.json.data).toMatchObject({
        status: 'disposable',
        reason: 'disposable_domain',
        is_disposable: true,
        credits_used: 1,
      });
      const bulk = await suite.call('/v1/verify/bulk', {
        key: account.apiKey,
        style: 'legacy',
        body: { emails: ['disp2@yopmail.com'] },
      });
      expect(bulk.json.results[0]).toMatchObject({
        status: 'invalid',
        reason: 'disposable_domain',
        is_disposable: true,
        credits_used: 1,
      });
      expect(await balance()).toBe(b0 - 2);

      const upload = await suite.upload({
        key: account.apiKey,
        file: { name: 'disposable.txt', content: 'disp3@yopmail.com\n' },
      });
      expect(upload.status).toBe(200);
      const job = await suite.finishedJob(upload.json.data.task_id as string, account.apiKey);
      expect(job).toMatchObject({
        status: 'completed',
        disposable_emails: 1,
        unknown_emails: 0,
        credits_used: 1,
      });
    });

    it('marks a domain on a domain blocklist as risky', async () => {
      const data = (await single('jane@listed.test')).json.data;
      expect(data).toMatchObject({ status: 'risky', reason: 'domain_listed', score: 0.3 });
      expect(data.domain_reputation).toMatchObject({
        is_listed: true,
        blacklists: ['dbl.test'],
        checked: true,
      });
    });

    it('flags a free provider, suggests a fix for a typo, and answers IDN domains in punycode', async () => {
      expect((await single('jane@gmail.com')).json.data.is_free).toBe(true);
      expect((await single('jane@gmial.com')).json.data.domain_suggestion).toBe('gmail.com');
      const idn = (await single('jane@Bücher.test')).json.data;
      expect(idn.domain).toBe('xn--bcher-kva.test');
      expect(idn.email).toBe('jane@xn--bcher-kva.test');
    });

    it('reports gravatar and domain age, and nothing else changes when those services are down', async () => {
      // Twin domains, each verified for the first time: one while the stand-ins answer, one while they are down.
      for (const name of ['twin-up.test', 'twin-down.test']) {
        world.domain(name, {
          mx: [{ priority: 10, host: `mx.${name}`, smtp: { mailboxes: ['alice'] } }],
          createdAt: new Date('2001-01-01T00:00:00Z'),
        });
        world.registerGravatar(`alice@${name}`);
      }
      await world.ready();
      const up = (await single('alice@twin-up.test', { check_smtp: true })).json.data;
      expect(up.has_gravatar).toBe(true);
      expect(up.gravatar_url).toMatch(/^http/);
      expect(up.domain_age).toBeGreaterThan(9000);
      world.setHttpDown(true);
      let down: Record<string, unknown>;
      try {
        down = (await single('alice@twin-down.test', { check_smtp: true })).json.data;
      } finally {
        world.setHttpDown(false);
      }
      expect(down).toMatchObject({ has_gravatar: false, gravatar_url: '', domain_age: 0 });
      const rest = (d: Record<string, unknown>) => {
        const {
          has_gravatar,
          gravatar_url,
          domain_age,
          response_time,
          email,
          domain,
          mx_records,
          domain_reputation,
          smtp_response,
          ...others
        } = d;
        return { ...others, reputation: { ...(domain_reputation as object), mx_ip: undefined } };
      };
      expect(rest(down)).toEqual(rest(up));
      expect(up).toMatchObject({ status: 'valid', reason: 'accepted' });
    });

    it('answers unknown and free of charge when no SMTP slot frees in time', async () => {
      const before = await balance();
      const [a, b] = await Promise.all([
        single('a@busy.test', { check_smtp: true }),
        single('b@busy.test', { check_smtp: true }),
      ]);
      const outcomes = [a.json.data, b.json.data];
      const fallback = outcomes.find((d) => d.reason === 'mx_only_verification_semaphore_timeout');
      expect(fallback).toMatchObject({ status: 'unknown', credits_used: 0 });
      const probed = outcomes.find((d) => d !== fallback);
      expect(probed).toMatchObject({ status: 'valid', reason: 'accepted', credits_used: 1 });
      expect(await balance()).toBe(before - 1);
    });
  });

  describe('billing and the cache', () => {
    it('charges 1 for a first verification, 0 when cached, 1 with force_refresh, 0 for unknown', async () => {
      const b0 = await balance();
      expect((await single('jane@quiet.test')).json.data.credits_used).toBe(1);
      expect(await balance()).toBe(b0 - 1);
      expect((await single('jane@quiet.test')).json.data.credits_used).toBe(0);
      expect(await balance()).toBe(b0 - 1);
      expect((await single('jane@quiet.test', { force_refresh: true })).json.data.credits_used).toBe(1);
      expect(await balance()).toBe(b0 - 2);
      expect((await single('x@slowdns.test', { force_refresh: true })).json.data.credits_used).toBe(0);
      expect(await balance()).toBe(b0 - 2);
    });

    it('answers an MX-only request from an SMTP-verified cached result, but not the other way round', async () => {
      await single('bob@ok.test', { check_smtp: true });
      const mxOnly = (await single('bob@ok.test')).json.data;
      expect(mxOnly).toMatchObject({ smtp_check: true, reason: 'accepted', credits_used: 0 });
      await single('bob@failover.test');
      world.resetCounters();
      const smtp = (await single('bob@failover.test', { check_smtp: true })).json.data;
      expect(smtp.credits_used).toBe(1);
      expect(world.smtpConnections()).toBeGreaterThan(0);
    });

    it('answers bad syntax with 400 INVALID_EMAIL in both styles and charges nothing', async () => {
      const b0 = await balance();
      const current = await single('not-an-address');
      expect(current.status).toBe(400);
      expect(current.json).toMatchObject({ success: false, code: '4000', error: { code: 'INVALID_EMAIL' } });
      const legacy = await single('a@@b.test', {}, 'legacy');
      expect(legacy.status).toBe(400);
      expect(legacy.json).toEqual({
        error: { code: 'INVALID_EMAIL', message: expect.any(String), details: expect.any(Object) },
      });
      const tooLong = await single(`${'a'.repeat(65)}@ok.test`);
      expect(tooLong.json.error.code).toBe('INVALID_EMAIL');
      expect(await balance()).toBe(b0);
    });

    it('answers addresses with control or invisible characters as bad syntax in both styles, charging nothing', async () => {
      const b0 = await balance();
      const current = await single('ja\u200bne@ok.test', { check_smtp: true });
      expect(current.status).toBe(400);
      expect(current.json).toMatchObject({ success: false, code: '4000', error: { code: 'INVALID_EMAIL' } });
      expect(current.json.error.message).toContain('U+200B');
      const legacy = await single('jane@ok.test\u202ecom', {}, 'legacy');
      expect(legacy.status).toBe(400);
      expect(legacy.json.error).toMatchObject({
        code: 'INVALID_EMAIL',
        details: { reason: 'invalid_syntax' },
      });
      const bulk = await suite.call('/v1/verify/bulk', {
        key: account.apiKey,
        body: { emails: ['ja\u0000ne@ok.test', '"ja\u0007ne"@ok.test'] },
      });
      expect(bulk.status).toBe(200);
      expect(bulk.json.data).toMatchObject({ invalid_emails: 2, credits_used: 0 });
      expect(bulk.json.data.results.map((r: { status: string }) => r.status)).toEqual(['invalid', 'invalid']);
      expect(await balance()).toBe(b0);
    });

    it('refuses with 402 (current) / 403 (legacy) when credits are short, verifies nothing and keeps the balance', async () => {
      const poor = await suite.createAccount({ credits: 0 });
      world.resetCounters();
      const current = await single(
        'jane@failover.test',
        { check_smtp: true, force_refresh: true },
        undefined,
        poor.apiKey,
      );
      expect(current.status).toBe(402);
      expect(current.json).toMatchObject({
        success: false,
        code: '4020',
        error: { code: 'INSUFFICIENT_CREDITS' },
      });
      const legacy = await single(
        'jane@failover.test',
        { check_smtp: true, force_refresh: true },
        'legacy',
        poor.apiKey,
      );
      expect(legacy.status).toBe(403);
      expect(legacy.json.error.code).toBe('INSUFFICIENT_CREDITS');
      expect(world.smtpConnections()).toBe(0);
      expect(await balance(poor.apiKey)).toBe(0);
    });
  });

  describe('response styles', () => {
    it('renders the older single variant with its result object and narrowed status', async () => {
      const role = await single('info@ok.test', {}, 'legacy');
      expect(role.json).toEqual({
        email: 'info@ok.test',
        status: 'valid',
        result: {
          deliverable: true,
          valid_format: true,
          valid_domain: true,
          valid_mx: true,
          disposable: false,
          role: true,
          catchall: false,
          free: false,
          smtp_valid: false,
        },
        score: 0.6,
        reason: null,
        credits_used: expect.any(Number),
      });
      const disposable = (await single('temp@mailinator.com', {}, 'legacy')).json;
      expect(disposable).toMatchObject({
        status: 'invalid',
        reason: 'disposable_domain',
        result: { disposable: true },
      });
      const risky = (await single('jane@listed.test', {}, 'legacy')).json;
      expect(risky).toMatchObject({ status: 'unknown', reason: 'domain_listed' });
    });

    it('returns every field of the current single result', async () => {
      const data = (await single('jane@ok.test')).json.data;
      expect(Object.keys(data).sort()).toEqual(
        [
          'email',
          'status',
          'score',
          'is_deliverable',
          'is_disposable',
          'is_catchall',
          'is_role',
          'is_free',
          'has_gravatar',
          'gravatar_url',
          'domain',
          'domain_age',
          'mx_records',
          'domain_reputation',
          'smtp_check',
          'reason',
          'smtp_response',
          'error_message',
          'domain_suggestion',
          'response_time',
          'credits_used',
        ].sort(),
      );
      expect(Number.isInteger(data.response_time)).toBe(true);
    });
  });

  describe('bulk', () => {
    beforeEach(() => world.resetCounters());

    it('verifies 100 addresses with correct totals and item credits summing to credits_used', async () => {
      const emails = Array.from({ length: 100 }, (_, i) =>
        i % 10 === 0 ? `ghost${i}@nx.test` : `user${i}@bulk.test`,
      );
      const b0 = await balance();
      const res = await suite.call('/v1/verify/bulk', { key: account.apiKey, body: { emails } });
      expect(res.status).toBe(200);
      const data = res.json.data;
      expect(data.total_emails).toBe(100);
      expect(data.results).toHaveLength(100);
      expect(data.results.map((r: { email: string }) => r.email)).toEqual(emails);
      expect(data.valid_emails).toBe(90);
      expect(data.invalid_emails).toBe(10);
      const sum = data.results.reduce((s: number, r: { credits_used: number }) => s + r.credits_used, 0);
      expect(sum).toBe(data.credits_used);
      expect(data.credits_used).toBe(100);
      expect(await balance()).toBe(b0 - 100);
      expect(Object.keys(data.results[0]).sort()).toEqual([
        'credits_used',
        'email',
        'is_deliverable',
        'score',
        'status',
      ]);
      expect(Number.isInteger(data.process_time)).toBe(true);
      expect(world.smtpConnections()).toBe(0);
    });

    it('gives a malformed item invalid_syntax and charges each distinct address once', async () => {
      const res = await suite.call('/v1/verify/bulk', {
        key: account.apiKey,
        style: 'legacy',
        body: { emails: ['broken@@x', 'dup1@bulk.test', 'dup1@bulk.test'] },
      });
      expect(res.status).toBe(200);
      expect(res.json.results[0]).toMatchObject({
        email: 'broken@@x',
        status: 'invalid',
        reason: 'invalid_syntax',
        credits_used: 0,
      });
      expect(res.json.results.map((r: { credits_used: number }) => r.credits_used)).toEqual([0, 1, 0]);
      expect(res.json).toMatchObject({
        total_emails: 3,
        invalid_emails: 1,
        valid_emails: 2,
        credits_used: 1,
      });
      expect(Object.keys(res.json.results[1]).sort()).toEqual(
        [
          'email',
          'status',
          'score',
          'is_deliverable',
          'is_disposable',
          'is_catchall',
          'is_role',
          'is_free',
          'domain',
          'check_smtp',
          'reason',
          'credits_used',
        ].sort(),
      );
    });

    it.each([0, 101])('refuses %i addresses with 400 naming the limit', async (n) => {
      const emails = Array.from({ length: n }, (_, i) => `u${i}@bulk.test`);
      const res = await suite.call('/v1/verify/bulk', { key: account.apiKey, body: { emails } });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('INVALID_REQUEST');
      expect(res.json.error.message).toContain('100');
    });

    it('refuses the whole batch when credits are short, and verifies nothing', async () => {
      const poor = await suite.createAccount({ credits: 2 });
      const res = await suite.call('/v1/verify/bulk', {
        key: poor.apiKey,
        body: { emails: ['p1@bulk.test', 'p2@bulk.test', 'p3@bulk.test'], check_smtp: true },
      });
      expect(res.status).toBe(402);
      expect(world.smtpConnections()).toBe(0);
      expect(await balance(poor.apiKey)).toBe(2);
    });
  });

  describe('disposable check', () => {
    it('answers GET and POST, lower-cased and in punycode, free of charge', async () => {
      const b0 = await balance();
      const get = await suite.call(
        `/v1/verify/disposable?email=${encodeURIComponent('Temp@MAILINATOR.com')}`,
        { key: account.apiKey },
      );
      expect(get.status).toBe(200);
      expect(get.json.data).toEqual({
        email: 'temp@mailinator.com',
        domain: 'mailinator.com',
        is_disposable: true,
        checked_at: expect.stringMatching(ISO_UTC),
      });
      const post = await suite.call('/v1/verify/disposable', {
        key: account.apiKey,
        body: { email: 'Jane@Bücher.test' },
      });
      expect(post.json.data).toMatchObject({
        email: 'jane@xn--bcher-kva.test',
        domain: 'xn--bcher-kva.test',
        is_disposable: false,
      });
      const legacy = await suite.call('/v1/verify/disposable', {
        key: account.apiKey,
        style: 'legacy',
        body: { email: 'a@mailinator.com' },
      });
      expect(legacy.json).toMatchObject({ email: 'a@mailinator.com', is_disposable: true });
      expect(await balance()).toBe(b0);
    });

    it('refuses check_smtp and bad syntax', async () => {
      const smtp = await suite.call('/v1/verify/disposable', {
        key: account.apiKey,
        body: { email: 'a@ok.test', check_smtp: true },
      });
      expect(smtp.status).toBe(400);
      expect(smtp.json.error).toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining('check_smtp'),
      });
      const smtpQuery = await suite.call('/v1/verify/disposable?email=a@ok.test&check_smtp=true', {
        key: account.apiKey,
      });
      expect(smtpQuery.status).toBe(400);
      const bad = await suite.call('/v1/verify/disposable?email=nope', {
        key: account.apiKey,
        style: 'legacy',
      });
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe('INVALID_EMAIL');
    });
  });

  describe('request bodies', () => {
    it('answers malformed JSON with 400 INVALID_REQUEST in both styles', async () => {
      for (const style of ['current', 'legacy'] as const) {
        const res = await suite.call('/v1/verify/single', {
          key: account.apiKey,
          style,
          rawBody: '{"email": "jane@ok.test",',
          headers: { 'Content-Type': 'application/json' },
        });
        expect(res.status).toBe(400);
        expect(style === 'current' ? res.json.error.code : res.json.error.code).toBe('INVALID_REQUEST');
        if (style === 'current') expect(res.json.code).toBe('4000');
        else expect(res.json.success).toBeUndefined();
      }
    });

    it('answers a 2 MiB body with 413 code 4130 in both styles, charging nothing', async () => {
      const b0 = await balance();
      const big = JSON.stringify({ email: 'jane@ok.test', padding: 'x'.repeat(2 * 1024 * 1024) });
      const current = await suite.call('/v1/verify/single', {
        key: account.apiKey,
        rawBody: big,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(current.status).toBe(413);
      expect(current.json).toMatchObject({
        success: false,
        code: '4130',
        error: { code: 'PAYLOAD_TOO_LARGE' },
      });
      const legacy = await suite.call('/v1/verify/bulk', {
        key: account.apiKey,
        style: 'legacy',
        rawBody: big,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(legacy.status).toBe(413);
      expect(legacy.json).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
      expect(await balance()).toBe(b0);
    });

    it('refuses unknown fields, wrong types, missing fields and non-JSON bodies, naming the field', async () => {
      const unknown = await suite.call('/v1/verify/single', {
        key: account.apiKey,
        body: { email: 'jane@ok.test', colour: 'red' },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.json.error.message).toContain('colour');
      const wrongType = await suite.call('/v1/verify/single', {
        key: account.apiKey,
        body: { email: 'jane@ok.test', check_smtp: 'yes' },
      });
      expect(wrongType.status).toBe(400);
      expect(wrongType.json.error.message).toContain('check_smtp');
      const missing = await suite.call('/v1/verify/single', { key: account.apiKey, body: {} });
      expect(missing.status).toBe(400);
      expect(missing.json.error.message).toContain('email');
      const array = await suite.call('/v1/verify/single', {
        key: account.apiKey,
        rawBody: '[1,2]',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(array.status).toBe(400);
      const form = await suite.call('/v1/verify/single', {
        key: account.apiKey,
        rawBody: 'email=a@b.c',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).toBe(400);
      expect(form.json.error.message).toContain('JSON');
      const bulkItems = await suite.call('/v1/verify/bulk', {
        key: account.apiKey,
        body: { emails: ['a@ok.test', 7] },
      });
      expect(bulkItems.status).toBe(400);
      expect(bulkItems.json.error.message).toContain('emails');
    });

    it('never reads the body of an unauthenticated request', async () => {
      const res = await suite.call('/v1/verify/single', {
        rawBody: '{broken',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status).toBe(401);
    });
  });

  // The one test of the default: every other test runs with SMTP_ALLOW_PRIVATE_NETWORKS=true (mailWorldEnv), since
  // the mail world lives on loopback. Last in the file: it restarts the verifier with the default.
  describe('the network rule with default settings', () => {
    const listeners: Server[] = [];
    let accepted = 0;

    beforeAll(async () => {
      // Listeners where a literal would connect, counting whatever arrives (the world's hosts count their own).
      for (const host of ['127.0.0.5', '::1']) {
        const server = createServer((socket) => {
          accepted++;
          socket.destroy();
        });
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(world.smtpPort, host, resolve);
        });
        listeners.push(server);
      }
      await suite.stopService('verifier');
      await suite.startService('verifier', { SMTP_ALLOW_PRIVATE_NETWORKS: 'false' });
    });
    afterAll(async () => {
      await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
    });

    it.each([
      ['x@[127.0.0.5]', '127.0.0.5: loopback'],
      ['x@[::1]', '::1: loopback'],
      ['x@[10.1.2.3]', '10.1.2.3: private'],
      ['jane@inside.test', 'mx.inside.test 127.0.0.'],
    ])('answers %s invalid no_mx_records and opens no connection', async (email, refused) => {
      world.resetCounters();
      accepted = 0;
      const res = await single(email, { check_smtp: true });
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({ status: 'invalid', reason: 'no_mx_records', smtp_check: false });
      expect(res.json.data.error_message).toContain(refused);
      expect(res.json.data.error_message).toContain('non-public');
      expect(accepted).toBe(0);
      expect(world.smtpConnections()).toBe(0);
    });
  });
});
