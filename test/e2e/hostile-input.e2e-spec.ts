import type { ResponseStyle } from '@emailverify/contracts';
import { type Account, eventually, type HttpReply, MailWorld, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Hostile input against the running apps, in both response styles: every reply is a 4xx in the request's
// style (or the documented 2xx), never a 5xx, and no reply or log line gives away what it should not.

const STYLES: ResponseStyle[] = ['current', 'legacy'];
const AUTH_FAILURES = 8;

/** What no reply body may contain: stack frames, SQL, file paths, module names. */
const LEAKS = [
  /\bat [\w.<>]+ \(/,
  /\.(?:js|ts|mjs):\d+/,
  /\b(?:SELECT|INSERT|UPDATE|DELETE)\b.*\b(?:FROM|INTO|SET)\b/i,
  /\/(?:work|home|usr|app|src|dist|node_modules)\//,
  /node_modules|@nestjs|class-validator|body-parser|typeorm|nats|multer|busboy|zod/i,
];

/** A 4xx reply in the request's style (status, JSON content type, envelope shape, code). */
function expectStyledError(style: ResponseStyle, res: HttpReply, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  if (style === 'current') {
    expect(res.json).toMatchObject({ success: false, error: { code: expect.any(String) } });
  } else {
    expect(res.json.success).toBeUndefined();
    expect(res.json.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  }
  if (code) expect(res.json.error.code).toBe(code);
  for (const leak of LEAKS) expect(res.text).not.toMatch(leak);
}

describe('hostile input against the running apps', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;
  const keys: Record<ResponseStyle, string> = { current: '', legacy: '' };
  /** Everything every process of the run has written (the gateway's access lines among it). */
  const output = () => [...suite.processes.values()].map((p) => p.output.join('')).join('\n');

  beforeAll(async () => {
    world = await MailWorld.start();
    world.domain('hostile.test', {
      mx: [{ priority: 10, host: 'mx.hostile.test', smtp: { mailboxes: ['jane', 'bob'] } }],
    });
    suite = await TestSuite.start({
      world,
      env: {
        LOG_LEVEL: 'info',
        RATE_LIMIT_AUTH_FAILURES: String(AUTH_FAILURES),
      },
    });
    account = await suite.createAccount({ credits: 10_000 });
    keys.current = account.apiKey;
    keys.legacy = (await suite.createAccount({ credits: 10_000, style: 'legacy' })).apiKey;
  });
  afterAll(async () => suite?.stop());

  describe.each(STYLES)('%s style', (style) => {
    const call = (path: string, options: Parameters<TestSuite['call']>[1] = {}) =>
      suite.call(path, { key: keys[style], style, ...options });

    it('refuses deep JSON and prototype keys with 400, charging nothing', async () => {
      const before = (await suite.call('/v1/credits', { key: keys[style], style: 'current' })).json.data
        .credits_balance as number;
      for (const depth of [33, 2_000, 50_000]) {
        const rawBody = `{"email":${'['.repeat(depth)}${']'.repeat(depth)}}`;
        for (const path of ['/v1/verify/single', '/v1/verify/bulk', '/v1/webhooks']) {
          const res = await call(path, { rawBody, headers: { 'Content-Type': 'application/json' } });
          expectStyledError(style, res, 400, 'INVALID_REQUEST');
          expect(res.json.error.message).toContain('32');
        }
      }
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        const rawBody = `{"email":"jane@hostile.test","${key}":{"polluted":true}}`;
        const res = await call('/v1/verify/single', {
          rawBody,
          headers: { 'Content-Type': 'application/json' },
        });
        expectStyledError(style, res, 400, 'INVALID_REQUEST');
        expect(res.json.error.message).toContain(key);
      }
      const after = (await suite.call('/v1/credits', { key: keys[style], style: 'current' })).json.data
        .credits_balance as number;
      expect(after).toBe(before);
      expect((await call('/v1/webhooks')).status).toBe(200);
      const hooks = (await call('/v1/webhooks')).json;
      expect(style === 'current' ? hooks.data.total : hooks.total).toBe(0);
    });

    it('keeps nothing of a refused upload', async () => {
      const before = (await suite.storedObjects()).length;
      const res = await suite.upload({
        key: keys[style],
        style,
        file: { name: 'x.csv', content: 'email\njane@hostile.test\n' },
        fields: { check_smtp: '0x1' },
      });
      expectStyledError(style, res, 400, 'INVALID_REQUEST');
      for (const fields of [
        { ['__proto__']: 'x' },
        { 'constructor[prototype][polluted]': 'yes' },
        { [`a${'[b]'.repeat(40)}`]: 'deep' },
      ]) {
        const form = new FormData();
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        form.append('file', new Blob(['email\njane@hostile.test\n']), 'x.csv');
        const raw = await fetch(`${suite.gatewayUrl()}/v1/verify/file`, {
          method: 'POST',
          headers: { 'SVC-API-KEY': keys[style], 'SVC-Response-Style': style },
          body: form,
        });
        const text = await raw.text();
        expectStyledError(
          style,
          { status: raw.status, headers: raw.headers, text, json: JSON.parse(text) },
          400,
        );
        expect(text).toMatch(/__proto__|constructor|deeper than 32|nesting too deep/);
      }
      expect((await suite.storedObjects()).length).toBe(before);
    });

    it('takes only plain timeouts and answers malformed job ids 404', async () => {
      for (const timeout of ['0x10', '1e2', '300.0', '', '301', '-1', '%2010']) {
        const res = await call(`/v1/verify/file/00000000-0000-4000-8000-000000000000?timeout=${timeout}`);
        expectStyledError(style, res, 400, 'INVALID_REQUEST');
      }
      for (const id of ['not-a-uuid', 'x'.repeat(101), 'y'.repeat(5000), "'%20OR%201=1--", '%00', '..']) {
        for (const [method, suffix] of [
          ['GET', ''],
          ['GET', '/results'],
          ['GET', '/results?valid=true'],
          ['POST', '/pause'],
          ['POST', '/cancel'],
          ['DELETE', ''],
        ] as const) {
          // `..` is resolved by the client (no such endpoint), everything else names no job.
          const res = await call(`/v1/verify/file/${id}${suffix}`, { method });
          expectStyledError(style, res, 404);
          expect(['JOB_NOT_FOUND', 'NOT_FOUND']).toContain(res.json.error.code);
          if (id !== '..') expect(res.json.error.code).toBe('JOB_NOT_FOUND');
        }
      }
      const long = await call(`/v1/verify/file/${'x'.repeat(101)}`);
      expectStyledError(style, long, 404, 'JOB_NOT_FOUND');
    });

    it('answers paths outside /v1 and malformed escapes as JSON in the request style', async () => {
      for (const path of ['/', '/admin', '/.env', '/v2/credits', '/v1/nothing', '/v1/verify/file/%E0%A4%A']) {
        const res = await call(path);
        expect(res.status).toBeLessThan(500);
        expectStyledError(style, res, res.status);
      }
    });
  });

  describe('downloads of non-ASCII and control-character file names', () => {
    const csv = 'email\njane@hostile.test\nbob@hostile.test\nnobody@hostile.test\n';
    const cases = [
      {
        // As curl -F file=@адреса.csv and browsers send it: the name's UTF-8 bytes in filename="...".
        name: 'адреса.csv',
        encoded: false,
        full: "attachment; filename=______-results.csv; filename*=UTF-8''%D0%B0%D0%B4%D1%80%D0%B5%D1%81%D0%B0-results.csv",
        filtered:
          "attachment; filename=______-results-valid.csv; filename*=UTF-8''%D0%B0%D0%B4%D1%80%D0%B5%D1%81%D0%B0-results-valid.csv",
      },
      {
        // A control character cannot travel raw in a part header; RFC 5987 filename* carries it.
        name: 'bad\u0001name\u202e.csv',
        encoded: true,
        full: 'attachment; filename=bad_name_-results.csv',
        filtered: 'attachment; filename=bad_name_-results-valid.csv',
      },
    ];

    /** An upload whose part names the file by `filename*=UTF-8''...` only. */
    const uploadEncoded = (key: string, name: string, content: string) => {
      const boundary = 'hostile-input-boundary';
      const rawBody =
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''${encodeURIComponent(name)}\r\n` +
        `Content-Type: text/csv\r\n\r\n${content}\r\n--${boundary}--\r\n`;
      return suite.call('/v1/verify/file', {
        method: 'POST',
        key,
        rawBody,
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      });
    };

    it.each(cases)(
      '$name keeps its name and downloads in both styles',
      async ({ name, encoded, full, filtered }) => {
        const created = encoded
          ? await uploadEncoded(keys.current, name, csv)
          : await suite.upload({ key: keys.current, file: { name, content: csv } });
        expect(created.status, created.text).toBe(200);
        expect(created.json.data.file_name).toBe(name);
        const id = created.json.data.task_id as string;
        const job = await suite.finishedJob(id, keys.current);
        expect(job.status).toBe('completed');

        // Current style, no filter: 307 to the signed link, which serves the file.
        const redirect = await suite.call(`/v1/verify/file/${id}/results`, { key: keys.current });
        expect(redirect.status).toBe(307);
        const link = new URL(redirect.headers.get('location')!);
        const direct = await suite.call(link.pathname + link.search);
        expect(direct.status, direct.text).toBe(200);
        expect(direct.headers.get('content-disposition')).toBe(full);
        expect(direct.text).toContain('jane@hostile.test');

        for (const style of STYLES) {
          const legacyFull = await suite.call(`/v1/verify/file/${id}/results`, {
            key: keys.current,
            style: 'legacy',
          });
          expect(legacyFull.status).toBe(200);
          expect(legacyFull.headers.get('content-disposition')).toBe(full);
          const only = await suite.call(`/v1/verify/file/${id}/results?valid=true`, {
            key: keys.current,
            style,
          });
          expect(only.status, only.text).toBe(200);
          expect(only.headers.get('content-type')).toMatch(/^text\/csv/);
          expect(only.headers.get('content-disposition')).toBe(filtered);
          expect(only.text).toContain('jane@hostile.test');
          expect(only.text).not.toContain('nobody@hostile.test');
        }
      },
    );
  });

  describe('logs', () => {
    it('hold no API key, no link signature and no submitted address', async () => {
      const secretAddress = 'private.person.4711@hostile.test';
      const bait = 'ev_' + 'b'.repeat(43);
      const fresh = await suite.createAccount({ credits: 1000 });
      await suite.call(`/v1/verify/disposable?email=${encodeURIComponent(secretAddress)}&api_key=${bait}`, {
        key: fresh.apiKey,
        headers: { 'X-API-Key': bait },
      });
      await suite.call('/v1/verify/disposable', { key: fresh.apiKey, body: { email: secretAddress } });
      await suite.call(`/v1/verify/single`, { key: fresh.apiKey, body: { email: secretAddress } });
      const created = await suite.upload({
        key: fresh.apiKey,
        file: { name: 'log-check.csv', content: `email\n${secretAddress}\n` },
      });
      const id = created.json.data.task_id as string;
      await suite.finishedJob(id, fresh.apiKey);
      const redirect = await suite.call(`/v1/verify/file/${id}/results`, { key: fresh.apiKey });
      const link = new URL(redirect.headers.get('location')!);
      const signature = link.searchParams.get('signature')!;
      expect(signature).toBeTruthy();
      expect((await suite.call(link.pathname + link.search)).status).toBe(200);
      const gatewayLines = () => suite.processes.get('gateway0')!.output.join('');
      const creditLines = () => gatewayLines().split('"path":"/v1/credits"').length;
      const creditLinesBefore = creditLines();
      await suite.call(`/v1/credits?api_key=${fresh.apiKey}`, { key: fresh.apiKey });

      // Access lines are written (the check would pass vacuously otherwise) and name the path, account and key.
      // The last request's line is awaited before the logs are read: every line before it is out by then.
      await eventually(async () => {
        const access = gatewayLines();
        expect(creditLines()).toBeGreaterThan(creditLinesBefore);
        expect(access).toContain('/v1/verify/disposable');
        expect(access).toContain(fresh.apiKeyId);
        expect(access).toContain(fresh.accountId);
      });
      const logs = output();
      for (const secret of [
        fresh.apiKey,
        bait,
        signature,
        secretAddress,
        encodeURIComponent(secretAddress),
      ]) {
        expect(logs).not.toContain(secret);
      }
      for (const key of Object.values(keys)) expect(logs).not.toContain(key);
      expect(logs).not.toMatch(/signature=/);
      expect(logs).not.toMatch(/ev_[A-Za-z0-9_-]{20,}/);
    });
  });
  // Last: it locks the loopback address out for the rest of the minute.
  describe('client address', () => {
    it('without TRUST_PROXY, X-Forwarded-For neither dodges nor redirects the failed-auth limit', async () => {
      const statuses: number[] = [];
      for (let i = 0; i <= AUTH_FAILURES; i++) {
        const res = await suite.call('/v1/credits', {
          key: `ev_guess_${i}`,
          headers: { 'X-Forwarded-For': `198.51.100.${i}, 10.0.0.${i}` },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([...Array<number>(AUTH_FAILURES).fill(401), 429]);
      // The limit counted the loopback peer, not the claimed addresses: a good key from it is refused too.
      const good = await suite.call('/v1/credits', {
        key: keys.legacy,
        style: 'legacy',
        headers: { 'X-Forwarded-For': '203.0.113.9' },
      });
      expectStyledError('legacy', good, 429, 'RATE_LIMIT_EXCEEDED');
    });
  });
});
