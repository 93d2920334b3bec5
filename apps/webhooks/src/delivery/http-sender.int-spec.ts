import { Resolver } from 'node:dns/promises';
import { createServer, type Server } from 'node:net';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { MailWorld, WebhookReceiver } from '@emailverify/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpSender, type SenderConfig } from './http-sender';

const TIMEOUT_MS = 1_000;
const BODY = JSON.stringify({ event: 'file.completed', data: { job_id: 'j1', note: 'ünïcode' } });
const HEADERS = { 'Content-Type': 'application/json', 'X-Webhook-Id': 'd1' };

describe('HttpSender: one POST per attempt, to the checked address only', () => {
  let receiver: WebhookReceiver;
  let defaultCas: string[];
  const senders: HttpSender[] = [];
  const sender = (config: Partial<SenderConfig> = {}) => {
    const made = new HttpSender({
      WEBHOOK_TIMEOUT_MS: TIMEOUT_MS,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
      WEBHOOK_DELIVERY_CONCURRENCY: 4,
      ...config,
    });
    senders.push(made);
    return made;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // The receiver's test CA trusted as NODE_EXTRA_CA_CERTS makes it trusted for the service.
    defaultCas = getCACertificates('default');
    setDefaultCACertificates([...defaultCas, receiver.caPem]);
  });
  afterEach(() => {
    for (const s of senders.splice(0)) s.close();
    receiver.reset();
  });
  afterAll(async () => {
    setDefaultCACertificates(defaultCas);
    await receiver?.stop();
  });

  it('posts the body and headers as given, reads the status and the start of the reply, and keeps the connection', async () => {
    receiver.respond('/in', { status: 202, body: 'thanks' });
    const s = sender();
    const first = await s.post(receiver.url('/in'), { ...HEADERS }, BODY);
    const second = await s.post(receiver.url('/in'), { ...HEADERS }, BODY);
    for (let i = 0; i < 6; i++) await s.post(receiver.url('/in'), { ...HEADERS }, BODY);

    for (const result of [first, second])
      expect(result).toMatchObject({ status: 202, body: 'thanks', error: null, retryAfter: undefined });
    const [request] = receiver.requests('/in');
    expect(request!.method).toBe('POST');
    expect(request!.rawBody.equals(Buffer.from(BODY))).toBe(true);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-id': 'd1',
      'content-length': String(Buffer.byteLength(BODY)),
    });
    // Connections are kept and reused: eight posts one after another make at most two (the pool may open a
    // second while the first is being handed back).
    expect(receiver.connections).toBeLessThanOrEqual(2);
  });

  it('reads Retry-After of a 429 or 503 only', async () => {
    receiver.respond('/busy', { status: 503, headers: { 'Retry-After': '7' } });
    receiver.respond('/broken', { status: 500, headers: { 'Retry-After': '7' } });
    const s = sender();
    expect(await s.post(receiver.url('/busy'), { ...HEADERS }, BODY)).toMatchObject({
      status: 503,
      retryAfter: '7',
    });
    expect(await s.post(receiver.url('/broken'), { ...HEADERS }, BODY)).toMatchObject({
      status: 500,
      retryAfter: undefined,
    });
  });

  it('keeps the first KiB of a large reply and reads no further than 64 KiB of it', async () => {
    receiver.respond('/large', { status: 200, body: 'x'.repeat(1024 * 1024) });
    const result = await sender().post(receiver.url('/large'), { ...HEADERS }, BODY);
    expect(result).toMatchObject({ status: 200, error: null });
    expect(result.body).toBe('x'.repeat(1024));
  });

  it('does not follow a redirect', async () => {
    receiver.respond('/moved', { redirect: receiver.url('/elsewhere'), status: 307 });
    const result = await sender().post(receiver.url('/moved'), { ...HEADERS }, BODY);
    expect(result.status).toBe(307);
    expect(receiver.requests('/elsewhere')).toHaveLength(0);
  });

  it('ends an attempt the receiver never answers at the time limit', async () => {
    receiver.respond('/hang', { hang: true });
    const result = await sender().post(receiver.url('/hang'), { ...HEADERS }, BODY);
    expect(result).toMatchObject({ status: null, error: `no reply within ${TIMEOUT_MS} ms` });
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
  });

  it('connects to the address the host name was checked at, verifying the certificate against the name', async () => {
    const asked: string[] = [];
    const s = sender({
      resolve: async (host) => {
        asked.push(host);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const result = await s.post(receiver.urlFor('localhost', '/named'), { ...HEADERS }, BODY);
    expect(result).toMatchObject({ status: 200, error: null });
    expect(asked).toEqual(['localhost']);
    expect(receiver.requests('/named')).toHaveLength(1);
  });

  it('never connects to a host name that resolves to a non-public address, and says why', async () => {
    const s = sender({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: false,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const result = await s.post(receiver.urlFor('localhost', '/private'), { ...HEADERS }, BODY);
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/^refused: localhost resolves to 127\.0\.0\.1/);
    expect(receiver.connections).toBe(0);
  });

  it('says why a connection failed', async () => {
    const closed = await WebhookReceiver.start();
    const url = closed.url('/gone');
    await closed.stop();
    const result = await sender().post(url, { ...HEADERS }, BODY);
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/^could not deliver: ECONNREFUSED/);
  });

  describe('every address of the host', () => {
    let world: MailWorld;
    let resolver: Resolver;
    /** The name's AAAA answers, then its A answers, as a dual-stack resolver lists them. */
    const viaWorld = async (host: string) => {
      const none = () => [] as string[];
      const [v6, v4] = await Promise.all([
        resolver.resolve6(host).catch(none),
        resolver.resolve4(host).catch(none),
      ]);
      return [
        ...v6.map((address) => ({ address, family: 6 })),
        ...v4.map((address) => ({ address, family: 4 })),
      ];
    };

    // The receiver's certificate names localhost: the world's DNS gives that name the addresses of each test.
    beforeAll(async () => {
      world = await MailWorld.start();
      resolver = new Resolver();
      resolver.setServers([world.dnsServers]);
    });
    afterAll(async () => {
      await world?.stop();
    });

    it('delivers on the first attempt to a host whose first addresses refuse connections', async () => {
      // 127.0.0.2 (and the IPv4-mapped IPv6 address of it) has nothing listening on the receiver's port;
      // 127.0.0.1 has the receiver.
      world.addresses('localhost', ['::ffff:127.0.0.2', '127.0.0.2', '127.0.0.1']);
      const result = await sender({ resolve: viaWorld }).post(
        receiver.urlFor('localhost', '/second'),
        { ...HEADERS },
        BODY,
      );
      expect(result).toMatchObject({ status: 200, error: null });
      expect(receiver.requests('/second')).toHaveLength(1);
    });

    it('tries the IPv4 address after a failed IPv6 one before the next IPv6 address', async () => {
      // Connections to 127.0.0.3 are counted and dropped at once: no TLS, so the address is unreachable.
      const dropped: string[] = [];
      const trap: Server = createServer((socket) => {
        dropped.push(socket.remoteAddress ?? '');
        socket.destroy();
      });
      await new Promise<void>((resolve) => trap.listen(receiver.port, '127.0.0.3', resolve));
      try {
        world.addresses('localhost', ['::ffff:127.0.0.2', '::ffff:127.0.0.3', '127.0.0.1']);
        const result = await sender({ resolve: viaWorld }).post(
          receiver.urlFor('localhost', '/interleaved'),
          { ...HEADERS },
          BODY,
        );
        expect(result).toMatchObject({ status: 200, error: null });
        // 127.0.0.1 (IPv4) came second, so the second IPv6 address was never needed.
        expect(dropped).toEqual([]);
      } finally {
        await new Promise<void>((resolve) => trap.close(() => resolve()));
      }
    });

    it('says why each address failed when none could be reached', async () => {
      world.addresses('localhost', ['127.0.0.2', '::ffff:127.0.0.2']);
      const result = await sender({ resolve: viaWorld }).post(
        receiver.urlFor('localhost', '/none'),
        { ...HEADERS },
        BODY,
      );
      expect(result.status).toBeNull();
      expect(result.error).toMatch(
        /^could not deliver: ::ffff:127\.0\.0\.2: ECONNREFUSED.*; 127\.0\.0\.2: ECONNREFUSED/,
      );
    });

    it('never connects to a non-public address unless allowed, even when it comes first', async () => {
      world.addresses('localhost', ['127.0.0.1', '::1']);
      const result = await sender({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: false, resolve: viaWorld }).post(
        receiver.urlFor('localhost', '/private-first'),
        { ...HEADERS },
        BODY,
      );
      expect(result.error).toBe(
        'refused: localhost resolves to ::1 (loopback), 127.0.0.1 (loopback), only non-public addresses; deliveries go only to public addresses',
      );
      expect(receiver.connections).toBe(0);
    });
  });
});
