import 'reflect-metadata';
import { DomainError, type FileJobResultsReply, type ResponseStyle, Subjects } from '@emailverify/contracts';
import { downloadLink } from '@emailverify/service-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accessRequest } from './access.middleware';
import { gatewayConfig } from '../../config';
import { attachment } from '../../files/files.service';
import { ACCOUNT, GatewayHarness, type StandInBus } from '../../testing/gateway-harness';
import { clientAddressKey } from '../rate-limit/client-address';

// The HTTP layer's rules on hostile input, in-process: the production pipeline and app set-up (GatewayHarness)
// with a stand-in bus and object store behind them.

const SIGNING_SECRET = 'hostile-input-spec-download-secret';
const JOB = '8f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90';
const CSV = 'email,status\r\na@example.com,valid\r\nb@example.com,invalid\r\n';
const STYLES: ResponseStyle[] = ['current', 'legacy'];
const AUTH_FAILURES = 5;
const DOWNLOADS = 12;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary reply shapes
  json: any;
}

/** An error reply with `code` in the request's style, as JSON. */
function expectError(style: ResponseStyle, res: Reply, status: number, code: string, text?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('content-disposition')).toBeNull();
  const error = style === 'current' ? res.json.error : res.json.error;
  if (style === 'current') expect(res.json.success).toBe(false);
  else expect(res.json.success).toBeUndefined();
  expect(error.code).toBe(code);
  if (text) expect(error.message).toContain(text);
}

describe('hostile input at the HTTP layer (in-process gateway, stand-in bus)', () => {
  let gateway: GatewayHarness;
  let bus: StandInBus;
  const results: FileJobResultsReply = {
    jobId: JOB,
    objectName: 'results/job.csv',
    fileName: 'адреса.csv',
    statusColumn: 1,
  };

  beforeAll(async () => {
    gateway = await GatewayHarness.start({
      env: {
        DOWNLOAD_SIGNING_SECRET: SIGNING_SECRET,
        RATE_LIMIT_AUTH_FAILURES: String(AUTH_FAILURES),
        RATE_LIMIT_DOWNLOAD: String(DOWNLOADS),
      },
    });
    bus = gateway.bus;
    gateway.jetStream.store.objects.set('results/job.csv', Buffer.from(CSV));
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => {
    gateway.reset();
    gateway.jetStream.store.failReads = false;
    bus.answer(Subjects.filesJobResults, () => results);
    bus.answer(Subjects.filesJobLocate, () => ({ ...results, accountId: ACCOUNT, status: 'completed' }));
  });

  async function call(
    path: string,
    options: {
      method?: string;
      style?: ResponseStyle;
      key?: string | null;
      body?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== null) headers['SVC-API-KEY'] = options.key ?? 'ev_current-key';
    if (options.style) headers['SVC-Response-Style'] = options.style;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(gateway.url(path), {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body,
      redirect: 'manual',
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  describe('JSON bodies', () => {
    it.each(STYLES)('refuses nesting deeper than 32 levels, even 2,000 deep (%s style)', async (style) => {
      for (const depth of [33, 2000, 100_000]) {
        const body = `{"email":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
        const res = await call('/v1/verify/disposable', { style, body });
        expectError(style, res, 400, 'INVALID_REQUEST', 'deeper than 32');
      }
      expect(bus.asked).toEqual([]);
    });

    it('accepts 32 levels (the body then fails on its fields, not its depth)', async () => {
      const body = `{"email":${'['.repeat(30)}${']'.repeat(30)}}`;
      const res = await call('/v1/verify/disposable', { body });
      expectError('current', res, 400, 'INVALID_REQUEST');
      expect(res.json.error.message).not.toContain('deeper');
    });

    it.each(STYLES)('refuses __proto__, constructor and prototype keys by name (%s style)', async (style) => {
      for (const body of [
        '{"email":"a@b.com","__proto__":{"admin":true}}',
        '{"email":"a@b.com","constructor":{"prototype":{"x":1}}}',
        '{"email":"a@b.com","nested":{"prototype":1}}',
      ]) {
        const res = await call('/v1/verify/disposable', { style, body });
        expectError(style, res, 400, 'INVALID_REQUEST');
        expect(res.json.error.message).toMatch(/__proto__|constructor|prototype/);
      }
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });
  });

  describe('parameters', () => {
    it.each(STYLES)('takes timeout only as a plain decimal integer 0..300 (%s style)', async (style) => {
      for (const timeout of ['0x10', '1e2', '300.0', '', '301', '-1', ' 5', '5&timeout=6']) {
        const res = await call(`/v1/verify/file/${JOB}?timeout=${timeout}`, { style });
        expectError(style, res, 400, 'INVALID_REQUEST', 'timeout');
      }
      expect(bus.asked).toEqual([]);
    });

    it('passes a plain timeout on', async () => {
      bus.answer(Subjects.filesJobGet, () => {
        throw new DomainError('JOB_NOT_FOUND', 'Job not found');
      });
      const res = await call(`/v1/verify/file/${JOB}?timeout=0`);
      expectError('current', res, 404, 'JOB_NOT_FOUND');
      expect(bus.asked.map((a) => a.subject)).toEqual([Subjects.filesJobGet]);
    });

    it.each(STYLES)(
      'answers a malformed job id 404 JOB_NOT_FOUND on every job route (%s style)',
      async (style) => {
        const ids = ['not-a-uuid', 'x'.repeat(101), '%27%20OR%201%3D1', `${JOB}x`, '..%2F..%2Fetc'];
        for (const id of ids) {
          for (const [method, path] of [
            ['GET', `/v1/verify/file/${id}`],
            ['GET', `/v1/verify/file/${id}/results`],
            ['POST', `/v1/verify/file/${id}/pause`],
            ['POST', `/v1/verify/file/${id}/resume`],
            ['POST', `/v1/verify/file/${id}/cancel`],
          ] as const) {
            const res = await call(path, { method, style });
            expectError(style, res, 404, 'JOB_NOT_FOUND');
          }
          const link = await call(`/v1/verify/file/${id}/download?expires=1&signature=abc`, {
            key: null,
            style,
          });
          expect(link.status).toBe(404);
        }
        expect(bus.asked).toEqual([]);
      },
    );

    it.each(STYLES)(
      'answers paths outside /v1 with JSON 404 in the request style (%s style)',
      async (style) => {
        for (const path of ['/', '/nope', '/v2/verify/single', '/.env', '/v1/nope', '/%E0%A4%A']) {
          const res = await call(path, { style, headers: { 'SVC-Response-Style': style } });
          expectError(style, res, 404, 'NOT_FOUND');
        }
      },
    );
  });

  describe('downloads', () => {
    it.each(STYLES)('name the file with an ASCII fallback and filename* (%s style)', async (style) => {
      const full = await call(`/v1/verify/file/${JOB}/results`, { style: 'legacy' });
      expect(full.status).toBe(200);
      expect(full.headers.get('content-disposition')).toBe(
        "attachment; filename=______.csv; filename*=UTF-8''%D0%B0%D0%B4%D1%80%D0%B5%D1%81%D0%B0.csv",
      );
      const filtered = await call(`/v1/verify/file/${JOB}/results?valid=true`, { style });
      expect(filtered.status).toBe(200);
      expect(filtered.text).toBe('email,status\r\na@example.com,valid\r\n');
      expect(filtered.headers.get('content-disposition')).toBe(
        "attachment; filename=______-valid.csv; filename*=UTF-8''%D0%B0%D0%B4%D1%80%D0%B5%D1%81%D0%B0-valid.csv",
      );
    });

    it('replace control and format characters in the name', () => {
      expect(attachment('a\u0001b\r\n\u202e.csv')).toBe('attachment; filename=a_b___.csv');
      expect(attachment('x"y\\.csv', ['valid'])).toBe('attachment; filename="x\\"y\\\\-valid.csv"');
      expect(attachment('')).toBe('attachment; filename=results.csv');
    });

    it.each(STYLES)('a failure after the CSV headers were set is a JSON error (%s style)', async (style) => {
      gateway.jetStream.store.failReads = true;
      const res = await call(`/v1/verify/file/${JOB}/results?valid=true`, { style });
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('content-disposition')).toBeNull();
      expect(res.text).not.toMatch(/object store read failed|\.ts:|at /);
    });

    it('limits signed-link downloads per client address', async () => {
      const link = downloadLink(
        {
          PUBLIC_BASE_URL: 'http://localhost:3000',
          DOWNLOAD_SIGNING_SECRET: SIGNING_SECRET,
          DOWNLOAD_URL_TTL_SECONDS: 3600,
        },
        JOB,
      );
      const path = new URL(link.url).pathname + new URL(link.url).search;
      // Other tests of this file may have used some of the address's downloads of this minute already.
      const statuses: number[] = [];
      for (let i = 0; i <= DOWNLOADS; i++) statuses.push((await call(path, { key: null })).status);
      expect(statuses).toContain(200);
      expect(statuses.at(-1)).toBe(429);
      const refused = await call(path, { key: null, style: 'legacy' });
      expectError('legacy', refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    });
  });

  describe('client address', () => {
    it('X-Forwarded-For neither dodges nor redirects the failed-auth limit (no proxy trusted by default)', async () => {
      const statuses: number[] = [];
      for (let i = 0; i <= AUTH_FAILURES; i++) {
        const res = await call('/v1/verify/disposable?email=a@b.com', {
          key: `ev_wrong-${i}`,
          headers: { 'X-Forwarded-For': `203.0.113.${i}` },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([...Array<number>(AUTH_FAILURES).fill(401), 429]);
      // Another "client" claimed by the header is the same loopback peer: still refused.
      const spoofed = await call('/v1/verify/disposable?email=a@b.com', {
        headers: { 'X-Forwarded-For': '198.51.100.7' },
      });
      expect(spoofed.status).toBe(429);
    });

    it('counts IPv6 clients per /64 and IPv4-mapped ones as IPv4', () => {
      const key = (ip: string) => clientAddressKey({ ip, socket: {} as never, headers: {} });
      expect(key('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
      expect(key('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
      expect(key('2001:db8::1')).toBe('2001:db8:0:0::/64');
      expect(key('::1')).toBe('0:0:0:0::/64');
      expect(key('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
      expect(key('::ffff:192.0.2.1')).toBe('192.0.2.1');
      expect(key('192.0.2.1')).toBe('192.0.2.1');
    });

    it('TRUST_PROXY defaults to no proxy and reads true, hop counts and lists', () => {
      expect(
        gatewayConfig.load({ NODE_ENV: 'test', DOWNLOAD_SIGNING_SECRET: SIGNING_SECRET }).TRUST_PROXY,
      ).toBe(false);
      expect(
        gatewayConfig.load({ NODE_ENV: 'test', DOWNLOAD_SIGNING_SECRET: SIGNING_SECRET, TRUST_PROXY: 'true' })
          .TRUST_PROXY,
      ).toBe(true);
      expect(
        gatewayConfig.load({ NODE_ENV: 'test', DOWNLOAD_SIGNING_SECRET: SIGNING_SECRET, TRUST_PROXY: '2' })
          .TRUST_PROXY,
      ).toBe(2);
      expect(
        gatewayConfig.load({
          NODE_ENV: 'test',
          DOWNLOAD_SIGNING_SECRET: SIGNING_SECRET,
          TRUST_PROXY: '10.0.0.0/8, loopback',
        }).TRUST_PROXY,
      ).toBe('10.0.0.0/8, loopback');
      expect(() =>
        gatewayConfig.load({ NODE_ENV: 'test', DOWNLOAD_SIGNING_SECRET: SIGNING_SECRET, TRUST_PROXY: 'a b' }),
      ).toThrow(/TRUST_PROXY/);
    });
  });

  it('the access log keeps the path without its query string', () => {
    expect(
      accessRequest({ id: 'r1', method: 'GET', url: '/v1/verify/disposable?email=a@b.com&api_key=ev_x' }),
    ).toEqual({ id: 'r1', method: 'GET', path: '/v1/verify/disposable' });
  });
});
