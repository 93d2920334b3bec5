import { Resolver } from 'node:dns/promises';
import { connect } from 'node:net';
import * as packet from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailWorld } from './index';

/** The engine's way of asking: Node's c-ares resolver pointed at the world's DNS server. */
function resolverFor(world: MailWorld, options: { timeout?: number; tries?: number } = {}): Resolver {
  const resolver = new Resolver(options);
  resolver.setServers([world.dnsServers]);
  return resolver;
}

function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'no code',
  );
}

describe('MailWorld DNS', () => {
  let world: MailWorld;
  let resolver: Resolver;
  /** MX records as the engine reads them (Node.js 24 adds `type: 'MX'` to each record). */
  const mx = async (name: string) =>
    (await resolver.resolveMx(name)).map(({ exchange, priority }) => ({ exchange, priority }));

  beforeAll(async () => {
    world = await MailWorld.start();
    resolver = resolverFor(world);
    world
      .domain('ordered.test', {
        mx: [
          { priority: 20, host: 'mx2.ordered.test', smtp: {} },
          { priority: 5, host: 'mx0.ordered.test', smtp: 'refused' },
          { priority: 10, host: 'mx1.ordered.test', smtp: {} },
        ],
      })
      .domain('nullmx.test', { nullMx: true })
      .domain('gone.test', { nxdomain: true })
      .domain('broken.test', { servfail: true })
      .domain('slow-dns.test', { dnsTimeout: true })
      .domain('implicit.test', { a: { catchAll: true } })
      .domain('nothing.test', {})
      .domain('ghost-mx.test', { mx: [{ priority: 10, host: 'ghost.ghost-mx.test', smtp: 'no-address' }] })
      .domain('spammy.test', { a: {}, listedIn: ['dbl.test'] })
      .domain('policy.test', { a: {}, txt: ['v=spf1 mx -all', 'site=1'], dmarc: 'v=DMARC1; p=reject' })
      .listIp('zen.test', '127.0.0.10');
  });

  afterAll(async () => {
    await world?.stop();
  });

  it('answers the TXT records of a domain and its DMARC record at _dmarc', async () => {
    const txt = async (name: string) => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    expect(await txt('policy.test')).toEqual(['v=spf1 mx -all', 'site=1']);
    expect(await txt('_dmarc.policy.test')).toEqual(['v=DMARC1; p=reject']);
    expect(await codeOf(resolver.resolveTxt('nothing.test'))).toBe('ENODATA');
    expect(await codeOf(resolver.resolveTxt('_dmarc.nothing.test'))).toBe('ENOTFOUND');
  });

  it('answers MX records sorted by priority, with an A record for each listening or refusing host', async () => {
    await expect(mx('ordered.test')).resolves.toEqual([
      { exchange: 'mx0.ordered.test', priority: 5 },
      { exchange: 'mx1.ordered.test', priority: 10 },
      { exchange: 'mx2.ordered.test', priority: 20 },
    ]);
    const addresses = await Promise.all(
      ['mx0', 'mx1', 'mx2'].map((mx) => resolver.resolve4(`${mx}.ordered.test`)),
    );
    expect(addresses).toEqual([
      [world.hostAddress('mx0.ordered.test')],
      [world.hostAddress('mx1.ordered.test')],
      [world.hostAddress('mx2.ordered.test')],
    ]);
    expect(new Set(addresses.flat()).size).toBe(3);
    expect(addresses.flat().every((ip) => ip.startsWith('127.0.'))).toBe(true);
  });

  it('answers fixed A and AAAA records of a name, each family in the order given', async () => {
    world.addresses('multi.addresses.test', ['127.0.0.2', '::1', '127.0.0.1', '::ffff:127.0.0.3']);
    expect(await resolver.resolve4('multi.addresses.test')).toEqual(['127.0.0.2', '127.0.0.1']);
    expect(await resolver.resolve6('multi.addresses.test')).toEqual(['::1', '::ffff:127.0.0.3']);
    expect(await codeOf(resolver.resolveMx('multi.addresses.test'))).toBe('ENODATA');
  });

  it('matches names case-insensitively and ignores a trailing dot', async () => {
    await expect(resolver.resolveMx('ORDERED.Test.')).resolves.toHaveLength(3);
  });

  it('answers a null MX as the single record "0 ." (RFC 7505)', async () => {
    await expect(mx('nullmx.test')).resolves.toEqual([{ exchange: '', priority: 0 }]);
  });

  it('answers NXDOMAIN (ENOTFOUND) for an nxdomain domain and for names defined nowhere', async () => {
    expect(await codeOf(resolver.resolveMx('gone.test'))).toBe('ENOTFOUND');
    expect(await codeOf(resolver.resolve4('gone.test'))).toBe('ENOTFOUND');
    expect(await codeOf(resolver.resolveMx('never-defined.test'))).toBe('ENOTFOUND');
    expect(await codeOf(resolver.resolve4('sub.ordered.test'))).toBe('ENOTFOUND');
  });

  it('answers SERVFAIL (ESERVFAIL) for a servfail domain', async () => {
    expect(await codeOf(resolver.resolveMx('broken.test'))).toBe('ESERVFAIL');
  });

  it('never answers a dnsTimeout domain, so the client times out (ETIMEOUT)', async () => {
    const impatient = resolverFor(world, { timeout: 100, tries: 1 });
    expect(await codeOf(impatient.resolveMx('slow-dns.test'))).toBe('ETIMEOUT');
    // The same resolver still gets answers for other names: only that domain is silent.
    await expect(impatient.resolveMx('nullmx.test')).resolves.toHaveLength(1);
  });

  it('answers no data (ENODATA) for MX of a domain with only an A record, and the A record itself', async () => {
    expect(await codeOf(resolver.resolveMx('implicit.test'))).toBe('ENODATA');
    await expect(resolver.resolve4('implicit.test')).resolves.toEqual([world.hostAddress('implicit.test')]);
  });

  it('answers no data for AAAA, TXT and NS of defined names, and no data at all for an empty domain', async () => {
    for (const name of ['implicit.test', 'mx1.ordered.test', 'ordered.test', 'nothing.test']) {
      expect(await codeOf(resolver.resolve6(name))).toBe('ENODATA');
      expect(await codeOf(resolver.resolveTxt(name))).toBe('ENODATA');
      expect(await codeOf(resolver.resolveNs(name))).toBe('ENODATA');
    }
    expect(await codeOf(resolver.resolveMx('nothing.test'))).toBe('ENODATA');
    expect(await codeOf(resolver.resolve4('nothing.test'))).toBe('ENODATA');
  });

  it('answers NXDOMAIN for an MX host declared without an address', async () => {
    await expect(mx('ghost-mx.test')).resolves.toEqual([{ exchange: 'ghost.ghost-mx.test', priority: 10 }]);
    expect(await codeOf(resolver.resolve4('ghost.ghost-mx.test'))).toBe('ENOTFOUND');
  });

  it('answers DNSBL IP zones with 127.0.0.2 for listed addresses and NXDOMAIN for the rest', async () => {
    await expect(resolver.resolve4('10.0.0.127.zen.test')).resolves.toEqual(['127.0.0.2']);
    await expect(resolver.resolveTxt('10.0.0.127.zen.test')).resolves.toHaveLength(1);
    expect(await codeOf(resolver.resolve4('11.0.0.127.zen.test'))).toBe('ENOTFOUND');
    expect(await codeOf(resolver.resolve4('10.0.0.127.other-zone.test'))).toBe('ENOTFOUND');
  });

  it('answers DNSBL domain zones with 127.0.1.2 for listed domains and NXDOMAIN for the rest', async () => {
    await expect(resolver.resolve4('spammy.test.dbl.test')).resolves.toEqual(['127.0.1.2']);
    expect(await codeOf(resolver.resolve4('ordered.test.dbl.test'))).toBe('ENOTFOUND');
    expect(await codeOf(resolver.resolve4('spammy.test.other-dbl.test'))).toBe('ENOTFOUND');
  });

  it('serves the same answers over TCP (length-prefixed, RFC 1035 4.2.2)', async () => {
    const [host, port] = world.dnsServers.split(':');
    const socket = connect({ host, port: Number(port) });
    socket.write(
      packet.streamEncode({ type: 'query', id: 4242, questions: [{ type: 'MX', name: 'ordered.test' }] }),
    );
    const chunks: Buffer[] = [];
    const response = await new Promise<packet.Packet>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        const data = Buffer.concat(chunks);
        if (data.length >= 2 && data.length >= 2 + data.readUInt16BE(0)) resolve(packet.streamDecode(data));
      });
    });
    socket.destroy();
    expect(response.id).toBe(4242);
    expect(response.answers?.map((a) => (a.type === 'MX' ? a.data.exchange : a.type))).toEqual([
      'mx0.ordered.test',
      'mx1.ordered.test',
      'mx2.ordered.test',
    ]);
  });

  it('answers from the newest definition when a domain is replaced', async () => {
    world.domain('changing.test', { mx: [{ priority: 10, host: 'mx.changing.test', smtp: {} }] });
    await expect(resolver.resolveMx('changing.test')).resolves.toHaveLength(1);
    world.domain('changing.test', { nxdomain: true });
    expect(await codeOf(resolver.resolveMx('changing.test'))).toBe('ENOTFOUND');
    world.domain('changing.test', { a: 'no-smtp' });
    expect(await codeOf(resolver.resolveMx('changing.test'))).toBe('ENODATA');
    await expect(resolver.resolve4('changing.test')).resolves.toHaveLength(1);
    world.domain('changing.test', {});
    expect(await codeOf(resolver.resolve4('changing.test'))).toBe('ENODATA');
  });

  it('counts the questions it receives, by name and type, until reset', async () => {
    world.resetCounters();
    await resolver.resolveMx('nullmx.test');
    await resolver.resolveMx('nullmx.test');
    await resolver.resolve4('implicit.test');
    expect(world.dnsQueries('nullmx.test', 'MX')).toBe(2);
    expect(world.dnsQueries('nullmx.test')).toBe(2);
    expect(world.dnsQueries('implicit.test', 'A')).toBe(1);
    expect(world.dnsQueries()).toBe(3);
    world.resetCounters();
    expect(world.dnsQueries()).toBe(0);
  });
});
