import { Resolver } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, MailWorld } from './index';
import { SmtpProbe } from './support/smtp-probe';

describe('MailWorld SMTP', () => {
  let world: MailWorld;

  /** Opens a session with the host's address on the shared port and reads the greeting. */
  async function session(host: string): Promise<{ probe: SmtpProbe; greeting: number }> {
    const probe = await open(host);
    return { probe, greeting: (await probe.reply()).code };
  }

  async function open(host: string): Promise<SmtpProbe> {
    await world.ready();
    const ip = world.hostAddress(host);
    if (!ip) throw new Error(`no address for ${host}`);
    return SmtpProbe.open(ip, world.smtpPort);
  }

  /** EHLO and MAIL FROM, then one RCPT per address; returns the RCPT reply codes. */
  function rcptCodes(host: string, ...addresses: string[]): Promise<number[]> {
    return rcptCodesFrom('check@probe.test', host, ...addresses);
  }

  async function rcptCodesFrom(sender: string, host: string, ...addresses: string[]): Promise<number[]> {
    const { probe } = await session(host);
    await probe.command('EHLO probe.test');
    await probe.command(`MAIL FROM:<${sender}>`);
    const codes: number[] = [];
    for (const address of addresses) codes.push((await probe.command(`RCPT TO:<${address}>`)).code);
    await probe.command('QUIT');
    probe.close();
    return codes;
  }

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('example.test', {
        mx: [
          { priority: 10, host: 'mx1.example.test', smtp: { mailboxes: ['alice', 'Bob'] } },
          { priority: 20, host: 'mx2.example.test', smtp: { catchAll: true } },
        ],
      })
      .domain('grey.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.grey.test',
            smtp: { rcptReply: { code: 450, text: '4.7.1 Greylisted, try later' } },
          },
        ],
      })
      .domain('postgrey.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.postgrey.test',
            smtp: { mailboxes: ['alice'], greylist: { delayMs: 300 } },
          },
        ],
      })
      .domain('busy.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.busy.test',
            smtp: { rcptReply: { code: 452, text: '4.2.2 Mailbox full' } },
          },
        ],
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
      .domain('blocked.test', {
        mx: [
          { priority: 10, host: 'mx.blocked.test', smtp: { banner: { code: 554, text: '5.7.1 Go away' } } },
        ],
      })
      .domain('closed.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.closed.test',
            smtp: { banner: { code: 421, text: '4.3.2 Shutting down' } },
          },
        ],
      })
      .domain('silent.test', { mx: [{ priority: 10, host: 'mx.silent.test', smtp: { silent: true } }] })
      .domain('slow.test', {
        mx: [{ priority: 10, host: 'mx.slow.test', smtp: { catchAll: true, delayMs: 1_000 } }],
      })
      .domain('hold.test', {
        mx: [{ priority: 10, host: 'mx.hold.test', smtp: { catchAll: true, holdMs: 1_000 } }],
      })
      .domain('refused.test', {
        mx: [
          { priority: 10, host: 'mx1.refused.test', smtp: 'refused' },
          { priority: 20, host: 'mx2.refused.test', smtp: {} },
        ],
      })
      .domain('tls.test', {
        mx: [{ priority: 10, host: 'mx.tls.test', smtp: { mailboxes: ['alice'], starttls: 'required' } }],
      })
      .domain('deferring.test', {
        mx: [
          {
            priority: 10,
            host: 'mx.deferring.test',
            smtp: {
              mailboxes: ['alice'],
              catchAll: true,
              deferUnknown: { times: 1, reply: { code: 452, text: '4.5.3 Too many recipients' } },
            },
          },
        ],
      })
      .domain('own-host.test', { a: { mailboxes: ['info'] } })
      .domain('dead-host.test', { a: 'no-smtp' });
  });

  afterAll(async () => {
    await world?.stop();
  });

  it('offers STARTTLS on a TLS host and refuses MAIL before it when TLS is required', async () => {
    const { probe } = await session('mx.tls.test');
    expect((await probe.command('EHLO probe.test')).lines).toContain('STARTTLS');
    expect(await probe.command('MAIL FROM:<check@probe.test>')).toMatchObject({ code: 530 });
    expect((await probe.command('STARTTLS')).code).toBe(220);
    probe.close();
    const plain = await session('mx1.example.test');
    expect((await plain.probe.command('EHLO probe.test')).lines).not.toContain('STARTTLS');
    expect((await plain.probe.command('STARTTLS')).code).toBe(502);
    plain.probe.close();
  });

  it('defers the first unknown recipients of a session as told, then answers as usual', async () => {
    expect(
      await rcptCodes('mx.deferring.test', 'alice@deferring.test', 'x1@deferring.test', 'x1@deferring.test'),
    ).toEqual([250, 452, 250]);
  });

  it('counts the sessions a host has open at once', async () => {
    world.resetCounters();
    const sessions = await Promise.all([session('mx.hold.test'), session('mx.hold.test')]);
    expect(world.smtpPeakSessions('mx.hold.test')).toBe(2);
    expect(world.smtpPeakSessions('mx.other.test')).toBe(0);
    for (const { probe } of sessions) probe.close();
  });

  it('greets with 220, answers EHLO with a multi-line 250, HELO, NOOP, RSET and QUIT with 221', async () => {
    const { probe, greeting } = await session('mx1.example.test');
    expect(greeting).toBe(220);
    const ehlo = await probe.command('EHLO probe.test');
    expect(ehlo.code).toBe(250);
    expect(ehlo.lines).toEqual(expect.arrayContaining(['PIPELINING', 'ENHANCEDSTATUSCODES', 'SMTPUTF8']));
    expect((await probe.command('HELO probe.test')).code).toBe(250);
    expect((await probe.command('NOOP')).code).toBe(250);
    expect((await probe.command('MAIL FROM:<>')).code).toBe(250);
    expect((await probe.command('RSET')).code).toBe(250);
    expect((await probe.command('RCPT TO:<alice@example.test>')).code).toBe(503);
    expect((await probe.command('XYZZY')).code).toBe(500);
    expect((await probe.command('QUIT')).code).toBe(221);
    await probe.closed;
  });

  it('refuses MAIL before EHLO and RCPT before MAIL with 503, and bad syntax with 501', async () => {
    const { probe } = await session('mx1.example.test');
    expect((await probe.command('MAIL FROM:<a@probe.test>')).code).toBe(503);
    expect((await probe.command('EHLO')).code).toBe(501);
    expect((await probe.command('EHLO probe.test')).code).toBe(250);
    expect((await probe.command('RCPT TO:<alice@example.test>')).code).toBe(503);
    expect((await probe.command('MAIL FROM:a@probe.test')).code).toBe(501);
    expect((await probe.command('MAIL FROM:<a@probe.test>')).code).toBe(250);
    expect((await probe.command('RCPT TO:<no-at-sign>')).code).toBe(501);
    probe.close();
  });

  it('accepts existing mailboxes (case-insensitively) with 250 and rejects others with 550 5.1.1', async () => {
    expect(
      await rcptCodes('mx1.example.test', 'alice@example.test', 'nobody@example.test', 'BOB@example.test'),
    ).toEqual([250, 550, 250]);
    const { probe } = await session('mx1.example.test');
    await probe.command('EHLO probe.test');
    await probe.command('MAIL FROM:<>');
    const rejected = await probe.command('RCPT TO:<nobody@example.test>');
    expect(rejected.lines[0]).toMatch(/^5\.1\.1 /);
    probe.close();
  });

  it('accepts every local part on a catch-all host, several RCPTs in one session', async () => {
    expect(await rcptCodes('mx2.example.test', 'alice@example.test', 'x7q2k9zz@example.test')).toEqual([
      250, 250,
    ]);
  });

  it('answers every RCPT with the fixed reply: 450 greylisting, 452 4.2.2, 552 mailbox full', async () => {
    expect(await rcptCodes('mx.grey.test', 'a@grey.test', 'b@grey.test')).toEqual([450, 450]);
    expect(await rcptCodes('mx.busy.test', 'a@busy.test')).toEqual([452]);
    expect(await rcptCodes('mx.full.test', 'a@full.test')).toEqual([552]);
    const { probe } = await session('mx.busy.test');
    await probe.command('EHLO probe.test');
    await probe.command('MAIL FROM:<>');
    expect((await probe.command('RCPT TO:<a@busy.test>')).lines).toEqual(['4.2.2 Mailbox full']);
    probe.close();
  });

  it('greylists like postgrey: a new triplet is refused for now, and let through once the delay has passed', async () => {
    const host = 'mx.postgrey.test';
    // First sight of each triplet, and a second attempt within the delay: 450 4.2.0.
    expect(await rcptCodes(host, 'alice@postgrey.test', 'bob@postgrey.test', 'alice@postgrey.test')).toEqual([
      450, 450, 450,
    ]);
    const { probe } = await session(host);
    await probe.command('EHLO probe.test');
    await probe.command('MAIL FROM:<check@probe.test>');
    expect((await probe.command('RCPT TO:<carol@postgrey.test>')).lines[0]).toMatch(/^4\.2\.0 .*Greylisted/);
    probe.close();
    // Once the delay has passed, the same triplets get the usual answers, in a new session.
    await eventually(async () =>
      expect(await rcptCodes(host, 'alice@postgrey.test', 'bob@postgrey.test')).toEqual([250, 550]),
    );
    // Another sender is another triplet: greylisted again.
    expect(await rcptCodesFrom('other@probe.test', host, 'alice@postgrey.test')).toEqual([450]);
  });

  it('greets with a 554 banner, then answers 503 to everything but QUIT', async () => {
    const probe = await open('mx.blocked.test');
    expect(await probe.reply()).toEqual({ code: 554, lines: ['5.7.1 Go away'] });
    expect((await probe.command('EHLO probe.test')).code).toBe(503);
    expect((await probe.command('QUIT')).code).toBe(221);
    await probe.closed;
  });

  it('greets with 421 and closes the connection', async () => {
    const probe = await open('mx.closed.test');
    expect((await probe.reply()).code).toBe(421);
    await probe.closed;
  });

  it('accepts a connection on a silent host and never sends anything, so the client times out', async () => {
    const probe = await open('mx.silent.test');
    probe.write('EHLO probe.test');
    // The server has read the command (it records it) and still says nothing.
    await eventually(() => expect(world.smtpTranscript('mx.silent.test')).toEqual(['EHLO probe.test']), {
      timeoutMs: 30_000,
    });
    await expect(probe.idleFor(100)).resolves.toBe(true);
    expect(probe.bytesReceived).toBe(0);
    probe.close();
  });

  it('delays every reply on a slow host: a short client timeout fires before the greeting arrives', async () => {
    const probe = await open('mx.slow.test');
    await probe.idleFor(50);
    expect(probe.bytesReceived).toBe(0);
    expect((await probe.reply()).code).toBe(220);
    probe.close();
  });

  it('holds QUIT after RCPT on a hold host, keeping the session open', async () => {
    const { probe } = await session('mx.hold.test');
    await probe.command('EHLO probe.test');
    await probe.command('MAIL FROM:<>');
    expect((await probe.command('RCPT TO:<a@hold.test>')).code).toBe(250);
    const bytesBeforeQuit = probe.bytesReceived;
    probe.write('QUIT');
    await probe.idleFor(50);
    expect(probe.bytesReceived).toBe(bytesBeforeQuit);
    expect((await probe.reply()).code).toBe(221);
    await probe.closed;
  });

  it('refuses connections to a refused host and to a no-smtp domain address, while the next MX answers', async () => {
    await expect(open('mx1.refused.test')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(open('dead-host.test')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const { probe, greeting } = await session('mx2.refused.test');
    expect(greeting).toBe(220);
    probe.close();
  });

  it('serves a domain that is its own mail host (A record, no MX)', async () => {
    expect(await rcptCodes('own-host.test', 'info@own-host.test', 'sales@own-host.test')).toEqual([250, 550]);
  });

  it('answers pipelined commands in order', async () => {
    const { probe } = await session('mx1.example.test');
    probe.write(
      'EHLO probe.test',
      'MAIL FROM:<>',
      'RCPT TO:<alice@example.test>',
      'RCPT TO:<zed@example.test>',
      'QUIT',
    );
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await probe.reply()).code);
    expect(codes).toEqual([250, 250, 250, 550, 221]);
    await probe.closed;
  });

  it('counts accepted connections per host and records the command lines it received', async () => {
    world.resetCounters();
    expect(world.smtpConnections()).toBe(0);
    await rcptCodes('mx1.example.test', 'alice@example.test');
    await rcptCodes('mx1.example.test', 'bob@example.test');
    await rcptCodes('mx2.example.test', 'carol@example.test');
    await expect(open('mx1.refused.test')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(world.smtpConnections('mx1.example.test')).toBe(2);
    expect(world.smtpConnections('MX2.example.test')).toBe(1);
    expect(world.smtpConnections('mx1.refused.test')).toBe(0);
    expect(world.smtpConnections()).toBe(3);
    expect(world.smtpTranscript('mx2.example.test')).toEqual([
      'EHLO probe.test',
      'MAIL FROM:<check@probe.test>',
      'RCPT TO:<carol@example.test>',
      'QUIT',
    ]);
    expect(world.smtpTranscript()).toHaveLength(12);
    world.resetCounters();
    expect(world.smtpTranscript()).toEqual([]);
    expect(world.smtpConnections('mx1.example.test')).toBe(0);
  });

  it('is reachable the way the engine reaches it: MX and A through the DNS server, then host-ip:smtpPort', async () => {
    // Defined just now and dialled without ready(): the DNS answer waits until the listener is bound.
    world.domain('fresh.test', { mx: [{ priority: 10, host: 'mx.fresh.test', smtp: { catchAll: true } }] });
    const resolver = new Resolver();
    resolver.setServers([world.dnsServers]);
    const [first] = await resolver.resolveMx('fresh.test');
    const [ip] = await resolver.resolve4(first.exchange);
    const probe = await SmtpProbe.open(ip, world.smtpPort);
    expect((await probe.reply()).code).toBe(220);
    probe.close();
  });

  it('starts and stops listening when a host is redefined between serving and refused', async () => {
    world.domain('flip.test', { mx: [{ priority: 10, host: 'mx.flip.test', smtp: 'refused' }] });
    await expect(open('mx.flip.test')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    world.domain('flip.test', { mx: [{ priority: 10, host: 'mx.flip.test', smtp: { catchAll: true } }] });
    expect(await rcptCodes('mx.flip.test', 'x@flip.test')).toEqual([250]);
    world.domain('flip.test', { mx: [{ priority: 10, host: 'mx.flip.test', smtp: 'refused' }] });
    await expect(open('mx.flip.test')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('serves a few hundred hosts, spilling from 127.0.0.x into 127.0.1.x', async () => {
    for (let i = 0; i < 300; i++) {
      world.domain(`many${i}.test`, {
        mx: [{ priority: 10, host: `mx.many${i}.test`, smtp: { catchAll: true } }],
      });
    }
    await world.ready();
    expect(world.hostAddress('mx.many299.test')).toMatch(/^127\.0\.1\.\d+$/);
    expect(await rcptCodes('mx.many299.test', 'x@many299.test')).toEqual([250]);
  });

  it('gives two worlds in one process different SMTP ports on the same host addresses', async () => {
    const other = await MailWorld.start();
    try {
      other.domain('other.test', { mx: [{ priority: 10, host: 'mx.other.test', smtp: { catchAll: true } }] });
      await other.ready();
      expect(other.smtpPort).not.toBe(world.smtpPort);
      expect(other.hostAddress('mx.other.test')).toBe('127.0.0.10');
      const probe = await SmtpProbe.open('127.0.0.10', other.smtpPort);
      expect((await probe.reply()).code).toBe(220);
      probe.close();
    } finally {
      await other.stop();
    }
  });
});
