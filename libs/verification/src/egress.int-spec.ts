// The boundary rule has no test-file exception for lib:verification; STYLE allows `testing` from tests.
import { MailWorld, SocksServer } from '@emailverify/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VerificationEngine } from './engine';
import type { VerificationOptions } from './options';
import type { ProviderRule } from './providers';
import { parseSocksProxyUrl } from './smtp/socks';

/**
 * How the probe reaches mail hosts, against the mail world on loopback: STARTTLS, provider rules, the catch-all
 * probe asked again after RSET, and egress through a SOCKS5 proxy.
 */
describe('SMTP egress against the mail world', () => {
  let world: MailWorld;
  let proxy: SocksServer;

  function engine(overrides: Partial<VerificationOptions> = {}): VerificationEngine {
    return new VerificationEngine({
      dnsServers: [world.dnsServers],
      dnsTimeoutMs: 1000,
      dnsTries: 1,
      smtpPort: world.smtpPort,
      smtpHeloName: 'probe.verifier.test',
      smtpMailFrom: 'verify@verifier.test',
      smtpConnectTimeoutMs: 3000,
      smtpCommandTimeoutMs: 3000,
      smtpMaxConcurrencyPerMx: 5,
      smtpSemaphoreTimeoutMs: 3000,
      dnsblIpZones: [],
      dnsblDomainZones: [],
      gravatarBaseUrl: '',
      rdapBaseUrl: '',
      smtpAllowPrivateNetworks: true,
      ...overrides,
    });
  }

  const smtp = { checkSmtp: true };

  beforeAll(async () => {
    world = await MailWorld.start();
    proxy = await SocksServer.start({ user: 'probe', password: 'p@ss:word' });
    world
      .domain('tls-required.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.tls-required.test',
            smtp: { mailboxes: ['alice'], starttls: 'required' },
          },
        ],
      })
      .domain('tls-broken.test', {
        mx: [
          { priority: 10, host: 'mx.tls-broken.test', smtp: { mailboxes: ['alice'], starttls: 'broken' } },
        ],
      })
      .domain('plain.test', { mx: [{ priority: 10, host: 'mx.plain.test', smtp: { mailboxes: ['alice'] } }] })
      .domain('acceptall.test', {
        mx: [{ priority: 10, host: 'in1.acceptall-provider.test', smtp: { mailboxes: ['alice'] } }],
      })
      .domain('probe452.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.probe452.test',
            smtp: {
              mailboxes: ['alice'],
              catchAll: true,
              deferUnknown: { times: 2, reply: { code: 452, text: '4.5.3 Too many recipients' } },
            },
          },
        ],
      })
      .domain('probe452once.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.probe452once.test',
            smtp: {
              mailboxes: ['alice'],
              catchAll: true,
              deferUnknown: { times: 1, reply: { code: 452, text: '4.5.3 Too many recipients' } },
            },
          },
        ],
      })
      .domain('mixed.test', {
        mx: [{ priority: 10, host: 'mx.mixed.test', smtp: { mailboxes: ['alice'], starttls: 'offered' } }],
      })
      .domain('catchall.test', {
        mx: [{ priority: 10, host: 'mx.catchall.test', smtp: { catchAll: true } }],
      });
    await world.ready();
  });

  afterAll(async () => {
    await proxy?.stop();
    await world?.stop();
  });

  beforeEach(() => {
    world.resetCounters();
    proxy.resetCounters();
  });

  describe('STARTTLS', () => {
    it('upgrades to TLS when offered, so a host refusing MAIL FROM before STARTTLS gives its verdict', async () => {
      const result = await engine().verify('alice@tls-required.test', smtp);
      expect(result).toMatchObject({ status: 'valid', reason: 'accepted', smtpCheck: true });
      expect(world.smtpTlsSessions('mx.tls-required.test')).toBe(1);
      expect(world.smtpTranscript('mx.tls-required.test').slice(0, 4)).toEqual([
        'EHLO probe.verifier.test',
        'STARTTLS',
        'EHLO probe.verifier.test',
        'MAIL FROM:<verify@verifier.test>',
      ]);
      const unknown = await engine().verify('nobody@tls-required.test', smtp);
      expect(unknown).toMatchObject({ status: 'invalid', reason: 'mailbox_not_found' });
    });

    it('falls back to a plain connection when the TLS handshake fails, and gives the verdict', async () => {
      const probe = engine();
      const result = await probe.verify('alice@tls-broken.test', smtp);
      expect(result).toMatchObject({ status: 'valid', reason: 'accepted', smtpCheck: true });
      expect(world.smtpConnections('mx.tls-broken.test')).toBe(2);
      const transcript = world.smtpTranscript('mx.tls-broken.test');
      expect(transcript.filter((line) => line === 'STARTTLS')).toHaveLength(1);
      expect(transcript).toContain('RCPT TO:<alice@tls-broken.test>');
      // The failed handshake is remembered: the next probe speaks plain text at once.
      world.resetCounters();
      expect(await probe.verify('nobody@tls-broken.test', smtp)).toMatchObject({ status: 'invalid' });
      expect(world.smtpConnections('mx.tls-broken.test')).toBe(1);
      expect(world.smtpTranscript('mx.tls-broken.test')).not.toContain('STARTTLS');
    });

    it('speaks plain SMTP to a host that does not offer STARTTLS', async () => {
      expect(await engine().verify('alice@plain.test', smtp)).toMatchObject({ status: 'valid' });
      expect(world.smtpTranscript('mx.plain.test')).not.toContain('STARTTLS');
    });
  });

  describe('provider rules', () => {
    const acceptsAll: ProviderRule = {
      name: 'accepts every recipient',
      mx: ['*.acceptall-provider.test'],
      catchAllProbe: false,
      acceptsAnyRecipient: true,
    };

    it('reports a mailbox accepted by a provider that accepts every RCPT as catchall, never valid', async () => {
      expect(await engine().verify('alice@acceptall.test', smtp)).toMatchObject({
        status: 'valid',
        reason: 'accepted',
      });
      const ruled = await engine({ smtpProviderRules: [acceptsAll] }).verify('alice@acceptall.test', smtp);
      expect(ruled).toMatchObject({
        status: 'catchall',
        reason: 'catch_all',
        isCatchall: true,
        score: 0.7,
        smtpCheck: true,
      });
    });

    it('leaves the catch-all question open when the probe is answered 452 twice (with RSET between)', async () => {
      const result = await engine().verify('alice@probe452.test', smtp);
      expect(result).toMatchObject({ status: 'valid', reason: 'accepted', isCatchall: false });
      const transcript = world.smtpTranscript('mx.probe452.test');
      expect(transcript.filter((line) => line.startsWith('RCPT'))).toHaveLength(3);
      expect(transcript).toContain('RSET');
    });

    it('takes the verdict of the catch-all probe asked again after RSET', async () => {
      const result = await engine().verify('alice@probe452once.test', smtp);
      expect(result).toMatchObject({ status: 'catchall', reason: 'catch_all', isCatchall: true });
    });
  });

  describe('SOCKS5 egress', () => {
    const verdicts = async (probe: VerificationEngine) =>
      Promise.all(
        [
          'alice@plain.test',
          'nobody@plain.test',
          'alice@catchall.test',
          'alice@tls-required.test',
          'alice@mixed.test',
        ].map(async (email) => {
          const r = await probe.verify(email, smtp);
          return `${email} ${r.status} ${r.reason}`;
        }),
      );

    it('gives the same verdicts through the proxy, and every SMTP connection goes through it', async () => {
      const direct = await verdicts(engine());
      const directConnections = world.smtpConnections();
      world.resetCounters();
      const proxied = await verdicts(engine({ smtpProxies: [parseSocksProxyUrl(proxy.url())] }));
      expect(proxied).toEqual(direct);
      expect(world.smtpConnections()).toBe(directConnections);
      // Every connection the mail world saw was one the proxy relayed, to the checked IP address.
      expect(proxy.connections()).toHaveLength(world.smtpConnections());
      for (const target of proxy.connections()) expect(target).toMatch(/^127\.\d+\.\d+\.\d+:\d+$/);
      expect(proxy.connections()).toContain(`${world.hostAddress('mx.plain.test')}:${world.smtpPort}`);
    });

    it('sends each address through the same proxy every time, and spreads addresses over the list', async () => {
      const second = await SocksServer.start();
      try {
        // Two engines stand for two verifiers (or one restarted): the proxy of an address is the same in both.
        const proxies = [parseSocksProxyUrl(proxy.url()), parseSocksProxyUrl(second.url())];
        const emails = Array.from({ length: 8 }, (_, i) => `user${i}@plain.test`);
        const viaSecond = async (probe: VerificationEngine) => {
          const picks: boolean[] = [];
          for (const email of emails) {
            const before = second.connections().length;
            await probe.verify(email, smtp);
            picks.push(second.connections().length > before);
          }
          return picks;
        };
        const first = await viaSecond(engine({ smtpProxies: proxies }));
        const again = await viaSecond(engine({ smtpProxies: proxies }));
        expect(again).toEqual(first);
        expect(first).toContain(true);
        expect(first).toContain(false);
        expect(proxy.connections().length + second.connections().length).toBe(2 * emails.length);
      } finally {
        await second.stop();
      }
    });

    it('passes over a proxy of the list that cannot be reached, and says which when none can', async () => {
      const down = parseSocksProxyUrl('socks5://127.0.0.1:9');
      const probe = engine({ smtpProxies: [down, parseSocksProxyUrl(proxy.url())] });
      for (const email of ['alice@plain.test', 'bob@plain.test'])
        expect((await probe.verify(email, smtp)).smtpCheck).toBe(true);
      expect(proxy.connections()).toHaveLength(2);
      const none = await engine({ smtpProxies: [down] }).verify('alice@plain.test', smtp);
      expect(none).toMatchObject({ status: 'unknown', reason: 'smtp_unreachable', smtpCheck: false });
      expect(none.errorMessage).toMatch(/SOCKS5 proxy 127\.0\.0\.1:9 unreachable/);
    });

    it('answers unknown with a reason naming the proxy when its credentials are wrong, without crashing', async () => {
      const result = await engine({
        smtpProxies: [parseSocksProxyUrl(proxy.url('probe', 'wrong'))],
      }).verify('alice@plain.test', smtp);
      expect(result).toMatchObject({ status: 'unknown', reason: 'smtp_unreachable', smtpCheck: false });
      expect(result.errorMessage).toMatch(/SOCKS5 proxy 127\.0\.0\.1:\d+ .*[Aa]uthentication failed/);
      expect(result.errorMessage).not.toContain('wrong');
      expect(proxy.authFailures()).toBeGreaterThan(0);
      expect(world.smtpConnections()).toBe(0);
    });

    it('probes a domain for catch-all the same way: through the proxy, over STARTTLS where required', async () => {
      const probe = engine({ smtpProxies: [parseSocksProxyUrl(proxy.url())] });
      const verdicts = await Promise.all(
        ['catchall.test', 'tls-required.test', 'plain.test'].map(
          async (domain) => (await probe.verifyDomain(domain, smtp)).isCatchall,
        ),
      );
      expect(verdicts).toEqual([true, false, false]);
      expect(world.smtpTlsSessions('mx.tls-required.test')).toBe(1);
      expect(world.smtpConnections()).toBe(3);
      expect(proxy.connections()).toHaveLength(3);
    });

    it('still refuses a non-public MX address before asking the proxy', async () => {
      const result = await engine({
        smtpAllowPrivateNetworks: false,
        smtpProxies: [parseSocksProxyUrl(proxy.url())],
      }).verify('alice@plain.test', smtp);
      expect(result).toMatchObject({ status: 'invalid', reason: 'no_mx_records' });
      expect(proxy.connections()).toHaveLength(0);
    });
  });
});
