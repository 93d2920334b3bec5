import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';
import { connect } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually, verifySignatures, WebhookReceiver } from './index';

const run = promisify(execFile);

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  peer: PeerCertificate;
}

interface PostOptions {
  /** Trusted CA; `null` trusts only the default roots. */
  ca: string | null;
  headers?: OutgoingHttpHeaders;
  agent?: Agent;
  signal?: AbortSignal;
}

/** A POST with node:https, which follows no redirect; a fresh connection unless an agent is given. */
function post(url: string, body: string | Buffer, options: PostOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      ca: options.ca ?? undefined,
      agent: options.agent ?? false,
      signal: options.signal,
    });
    req.once('error', reject);
    req.once('response', (res) => {
      const peer = (res.socket as TLSSocket).getPeerCertificate();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
          peer,
        }),
      );
    });
    req.end(body);
  });
}

/** Runs plain `fetch` in a child process with the given environment; prints the status or the error code. */
async function fetchFromChild(url: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = `fetch(process.argv[1], { method: 'POST', body: 'from a child' }).then(
    (res) => console.log(res.status),
    (error) => console.log(error.cause?.code ?? error.message),
  );`;
  const { stdout } = await run(process.execPath, ['-e', script, url], { env });
  return stdout.trim();
}

function envWithout(name: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env[name];
  return env;
}

describe('WebhookReceiver', () => {
  let receiver: WebhookReceiver;
  let trusted: PostOptions;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    trusted = { ca: receiver.caPem };
  });

  afterAll(async () => {
    await receiver?.stop();
  });

  beforeEach(() => {
    receiver.reset();
  });

  describe('TLS', () => {
    it('serves on 127.0.0.1 a certificate for localhost, 127.0.0.1 and ::1 issued by its CA', async () => {
      expect(receiver.url('/x')).toBe(`https://127.0.0.1:${receiver.port}/x`);
      const res = await post(receiver.url('/tls'), '{}', trusted);
      expect(res.status).toBe(200);
      expect(res.peer.subjectaltname).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
      expect(readFileSync(receiver.caFile, 'utf8')).toBe(receiver.caPem);
      expect(receiver.caPem).toMatch(/^-----BEGIN CERTIFICATE-----\n[^]*-----END CERTIFICATE-----\n?$/);
    });

    it('is refused by a client that trusts only the default roots', async () => {
      await expect(post(receiver.url('/untrusted'), '{}', { ca: null })).rejects.toMatchObject({
        code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      });
      expect(receiver.requests()).toEqual([]);
    });

    it('makes a new CA for every receiver, which does not vouch for another receiver', async () => {
      const other = await WebhookReceiver.start();
      try {
        expect(other.caPem).not.toBe(receiver.caPem);
        await expect(post(receiver.url('/'), '{}', { ca: other.caPem })).rejects.toMatchObject({
          code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
        });
      } finally {
        await other.stop();
      }
    });

    it('answers by name: localhost, and [::1] where the machine has IPv6 loopback', async () => {
      expect(receiver.urlFor('localhost', '/by-name')).toBe(`https://localhost:${receiver.port}/by-name`);
      expect(receiver.urlFor('::1', '/by-name')).toBe(`https://[::1]:${receiver.port}/by-name`);
      expect((await post(receiver.urlFor('localhost', '/by-name'), '{}', trusted)).status).toBe(200);
      if (receiver.ipv6)
        expect((await post(receiver.urlFor('::1', '/by-name'), '{}', trusted)).status).toBe(200);
      expect(receiver.requests('/by-name')).toHaveLength(receiver.ipv6 ? 2 : 1);
    });

    it('is trusted by plain fetch in a process started with NODE_EXTRA_CA_CERTS=caFile, and only then', async () => {
      const url = receiver.url('/from-child');
      const env = envWithout('NODE_EXTRA_CA_CERTS');
      expect(await fetchFromChild(url, env)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      expect(await fetchFromChild(url, { ...env, NODE_EXTRA_CA_CERTS: receiver.caFile })).toBe('200');
      const [received] = receiver.requests('/from-child');
      expect(received.body).toBe('from a child');
      expect(receiver.requests()).toHaveLength(1);
    });
  });

  describe('recording', () => {
    it('records method, path with query, raw body, lowercased headers and the time of arrival', async () => {
      const body = Buffer.concat([
        Buffer.from('{"name": "Zoë ✓",\r\n  "n":1}  ', 'utf8'),
        Buffer.from([0xff]),
      ]);
      const before = new Date();
      const res = await post(receiver.url('/hooks/a?x=1&y=%20'), body, {
        ...trusted,
        headers: { 'X-Webhook-Id': 'del_1', 'Webhook-Id': 'del_1', 'X-Repeated': ['one', 'two'] },
      });
      const after = new Date();
      expect([res.status, res.body]).toEqual([200, '']);

      const [received] = receiver.requests('/hooks/a?x=1&y=%20');
      expect(received.method).toBe('POST');
      expect(received.path).toBe('/hooks/a?x=1&y=%20');
      expect(received.rawBody.equals(body)).toBe(true);
      expect(received.body).toBe(body.toString('utf8'));
      expect(received.headers).toMatchObject({
        'x-webhook-id': 'del_1',
        'webhook-id': 'del_1',
        'content-type': 'application/json',
        'content-length': String(body.length),
        'x-repeated': 'one, two',
      });
      expect(received.headerLines).toContainEqual(['x-repeated', 'one']);
      expect(received.headerLines).toContainEqual(['x-repeated', 'two']);
      expect(received.receivedAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(received.receivedAt.getTime()).toBeLessThanOrEqual(after.getTime());
      expect(receiver.requests('/hooks/a')).toEqual([]);
    });

    it('lists every request in order of arrival, or those of one path', async () => {
      await post(receiver.url('/one'), '1', trusted);
      await post(receiver.url('/two'), '2', trusted);
      await post(receiver.url('/one'), '3', trusted);
      expect(receiver.requests().map((r) => `${r.path} ${r.body}`)).toEqual(['/one 1', '/two 2', '/one 3']);
      expect(receiver.requests('/one').map((r) => r.body)).toEqual(['1', '3']);
    });

    it('waitFor resolves with requests already received and with those still to come', async () => {
      await post(receiver.url('/wait'), 'a', trusted);
      expect((await receiver.waitFor('/wait', 1)).map((r) => r.body)).toEqual(['a']);
      const waiting = receiver.waitFor('/wait', 3);
      await post(receiver.url('/wait'), 'b', trusted);
      await post(receiver.url('/wait'), 'c', trusted);
      expect((await waiting).map((r) => r.body)).toEqual(['a', 'b', 'c']);
    });

    it('waitFor rejects after its timeout, naming what did arrive', async () => {
      await post(receiver.url('/elsewhere'), 'x', trusted);
      // A deliberately short wait: this checks the message of a wait that runs out, not anyone's speed.
      await expect(receiver.waitFor('/never', 2, 50)).rejects.toThrow(
        /0 of 2 requests to \/never arrived within 50 ms; 1 connections; all requests:\n.* POST \/elsewhere \(1 bytes\)/,
      );
    });
  });

  describe('answers', () => {
    it('answers 200 with an empty body by default', async () => {
      const res = await post(receiver.url('/anything'), '{}', trusted);
      expect([res.status, res.body, res.headers['content-length']]).toEqual([200, '', '0']);
    });

    it('answers a set status with its headers and body', async () => {
      receiver.respond('/busy', { status: 429, headers: { 'Retry-After': '7' }, body: 'slow down' });
      const res = await post(receiver.url('/busy'), '{}', trusted);
      expect([res.status, res.headers['retry-after'], res.body]).toEqual([429, '7', 'slow down']);
    });

    it('answers a bare status such as 410', async () => {
      receiver.respond('/gone', 410);
      for (let i = 0; i < 2; i++) expect((await post(receiver.url('/gone'), '{}', trusted)).status).toBe(410);
      expect(receiver.requests('/gone')).toHaveLength(2);
    });

    it('walks a sequence one request at a time and repeats its last answer; setting it again restarts it', async () => {
      receiver.respond('/flaky', [500, { status: 503, headers: { 'Retry-After': '1' } }, 200]);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await post(receiver.url('/flaky'), '{}', trusted)).status);
      expect(statuses).toEqual([500, 503, 200, 200]);
      receiver.respond('/flaky', [500, 200]);
      expect((await post(receiver.url('/flaky'), '{}', trusted)).status).toBe(500);
    });

    it('redirects without following, with 302 unless told', async () => {
      const target = receiver.url('/new-home');
      for (const status of [undefined, 301, 302, 307, 308] as const) {
        receiver.respond('/moved', { redirect: target, status });
        const res = await post(receiver.url('/moved'), '{}', trusted);
        expect([res.status, res.headers.location]).toEqual([status ?? 302, target]);
      }
      expect(receiver.requests('/moved')).toHaveLength(5);
      expect(receiver.requests('/new-home')).toEqual([]);
    });

    it('hangs: records the request and sends nothing back, until the client gives up', async () => {
      receiver.respond('/hang', { hang: true });
      const controller = new AbortController();
      let answered = false;
      const sent = post(receiver.url('/hang'), '{"wait":true}', {
        ...trusted,
        signal: controller.signal,
      }).then((res) => {
        answered = true;
        return res;
      });
      const [received] = await receiver.waitFor('/hang', 1);
      expect(received.body).toBe('{"wait":true}');
      // The client's own patience: a short timer, after which the still-unanswered request is aborted.
      setTimeout(() => controller.abort(), 200);
      await expect(sent).rejects.toMatchObject({ name: 'AbortError' });
      expect(answered).toBe(false);
    });

    it('counts the requests to a path open at once, until their answer ends or their client gives up', async () => {
      receiver.respond('/crowd', { hang: true });
      const controllers = Array.from({ length: 3 }, () => new AbortController());
      const sent = controllers.map((controller) =>
        post(receiver.url('/crowd'), '{}', { ...trusted, signal: controller.signal }).catch(() => 'aborted'),
      );
      await receiver.waitFor('/crowd', 3);
      expect(receiver.concurrency('/crowd')).toEqual({ now: 3, peak: 3 });
      for (const controller of controllers) controller.abort();
      expect(await Promise.all(sent)).toEqual(['aborted', 'aborted', 'aborted']);
      // The server sees an aborted request's close a moment after the client aborts.
      await eventually(() => expect(receiver.concurrency('/crowd').now).toBe(0), { intervalMs: 10 });
      receiver.respond('/crowd', 200);
      expect((await post(receiver.url('/crowd'), '{}', trusted)).status).toBe(200);
      expect(receiver.concurrency('/crowd')).toEqual({ now: 0, peak: 3 });
      expect(receiver.concurrency('/never')).toEqual({ now: 0, peak: 0 });
    });

    it('refuses behaviours that are not answers', () => {
      expect(() => receiver.respond('/bad', 102)).toThrow(/not a final HTTP status/);
      expect(() => receiver.respond('/bad', [])).toThrow(/empty sequence/);
      expect(() => receiver.respond('/bad', { redirect: '/relative' })).toThrow(/not an absolute URL/);
      expect(() => receiver.respond('no-slash', 200)).toThrow(/starts with "\/"/);
    });
  });

  describe('connections', () => {
    it('counts TCP connections, whether or not a request followed, and 0 when nothing connected', async () => {
      expect(receiver.connections).toBe(0);
      await post(receiver.url('/c'), '{}', trusted);
      await post(receiver.url('/c'), '{}', trusted);
      expect(receiver.connections).toBe(2);

      const agent = new Agent({ keepAlive: true, ca: receiver.caPem, maxSockets: 1 });
      try {
        await post(receiver.url('/c'), '{}', { ...trusted, agent });
        await post(receiver.url('/c'), '{}', { ...trusted, agent });
      } finally {
        agent.destroy();
      }
      expect(receiver.connections).toBe(3);

      // Not TLS at all: the server drops it, after counting it.
      const raw = connect(receiver.port, '127.0.0.1');
      raw.on('error', () => undefined);
      raw.end('not a TLS client hello\r\n');
      await once(raw, 'close');
      expect(receiver.connections).toBe(4);
      expect(receiver.requests('/c')).toHaveLength(4);
    });
  });

  describe('stop', () => {
    it('cuts a hanging request, fails pending waits and removes the CA file', async () => {
      const own = await WebhookReceiver.start();
      own.respond('/hang', { hang: true });
      const sent = post(own.url('/hang'), '{}', { ca: own.caPem });
      await own.waitFor('/hang', 1);
      // Both outcomes are awaited after stop(), so their handlers are in place before it runs.
      const cut = expect(sent).rejects.toMatchObject({ code: 'ECONNRESET' });
      const failed = expect(own.waitFor('/never', 1)).rejects.toThrow(
        /stopped while waiting for requests to \/never/,
      );
      await own.stop();
      await cut;
      await failed;
      expect(existsSync(own.caFile)).toBe(false);
      await expect(post(own.url('/'), '{}', { ca: own.caPem })).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    });
  });

  describe('verifySignatures', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const id = 'del_01J9ZK3Q';
    const timestamp = '1767225600';
    const body = '{"event":"file.completed","data":{"file_name":"Liste été.csv","total_emails":3}}';

    // Written out here from docs/api.md's header table, apart from the helper: hex HMAC keyed with the secret
    // string, and the Standard Webhooks base64 HMAC keyed with the decoded part after whsec_.
    const xSignature = (s: string, ts: string, b: string) =>
      `sha256=${createHmac('sha256', s).update(`${ts}.${b}`).digest('hex')}`;
    const standardSignature = (s: string, msgId: string, ts: string, b: string) =>
      `v1,${createHmac('sha256', Buffer.from(s.replace(/^whsec_/, ''), 'base64'))
        .update(`${msgId}.${ts}.${b}`)
        .digest('base64')}`;
    const signedHeaders = (b: string) => ({
      'X-Webhook-Id': id,
      'X-Webhook-Timestamp': timestamp,
      'X-Webhook-Signature': xSignature(secret, timestamp, b),
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': standardSignature(secret, id, timestamp, b),
    });

    it('accepts the Standard Webhooks specification test vector', () => {
      const check = verifySignatures({
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        headers: {
          'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
          'webhook-timestamp': '1614265330',
          'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
        },
        rawBody: '{"test": 2432232314}',
      });
      expect(check).toEqual({ xWebhookSignature: false, standardWebhooks: true });
    });

    it('accepts both signatures of a delivery as the receiver recorded it', async () => {
      await post(receiver.url('/signed'), body, { ...trusted, headers: signedHeaders(body) });
      const [received] = await receiver.waitFor('/signed', 1);
      expect(verifySignatures({ secret, headers: received.headers, rawBody: received.rawBody })).toEqual({
        xWebhookSignature: true,
        standardWebhooks: true,
      });
      expect(verifySignatures({ secret, headers: received.headers, rawBody: received.body })).toEqual({
        xWebhookSignature: true,
        standardWebhooks: true,
      });
    });

    it('rejects a tampered body, a wrong secret and a wrong timestamp, each scheme on its own', () => {
      const headers = signedHeaders(body);
      const tampered = body.replace('"total_emails":3', '"total_emails":4');
      expect(verifySignatures({ secret, headers, rawBody: tampered })).toEqual({
        xWebhookSignature: false,
        standardWebhooks: false,
      });
      const otherSecret = `whsec_${randomBytes(32).toString('base64')}`;
      expect(verifySignatures({ secret: otherSecret, headers, rawBody: body })).toEqual({
        xWebhookSignature: false,
        standardWebhooks: false,
      });
      expect(
        verifySignatures({
          secret,
          headers: { ...headers, 'X-Webhook-Timestamp': '1767225601' },
          rawBody: body,
        }),
      ).toEqual({ xWebhookSignature: false, standardWebhooks: true });
      expect(
        verifySignatures({
          secret,
          headers: { ...headers, 'webhook-timestamp': '1767225601' },
          rawBody: body,
        }),
      ).toEqual({ xWebhookSignature: true, standardWebhooks: false });
    });

    it('accepts a webhook-signature with several entries when one matches, and nothing when headers are missing', () => {
      const headers = signedHeaders(body);
      const several = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
      expect(verifySignatures({ secret, headers: several, rawBody: body }).standardWebhooks).toBe(true);
      expect(verifySignatures({ secret, headers: {}, rawBody: body })).toEqual({
        xWebhookSignature: false,
        standardWebhooks: false,
      });
      expect(() => verifySignatures({ secret: 'not-a-whsec', headers, rawBody: body })).toThrow(/whsec_/);
    });
  });
});
