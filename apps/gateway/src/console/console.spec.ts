import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayHarness } from '../testing/gateway-harness';
import { expectError } from '../testing/replies';
import { CONSOLE_HEADERS } from './console';

// The web console's files as the gateway serves them at /console, from a directory laid out as Vite's build
// lays it out (index.html and hashed assets/), and what /console says where no console was built.

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const INDEX =
  '<!doctype html><html lang="en"><head><script type="module" src="/console/assets/index-Ab12.js"></script>' +
  '</head><body><div id="root"></div></body></html>';
const SCRIPT = 'console.info("console");\n';

function expectConsoleHeaders(headers: Headers): void {
  expect(headers.get('content-security-policy')).toBe(CSP);
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
}

describe('the web console at /console', () => {
  // Under a directory whose name starts with a dot, as npm start's build is (.data/builds/start-<pid>).
  const top = mkdtempSync(path.join(tmpdir(), 'ev-console-'));
  const work = path.join(top, '.data', 'console');
  let gateway: GatewayHarness;

  beforeAll(async () => {
    mkdirSync(path.join(work, 'assets'), { recursive: true });
    writeFileSync(path.join(work, 'index.html'), INDEX);
    writeFileSync(path.join(work, 'assets', 'index-Ab12.js'), SCRIPT);
    gateway = await GatewayHarness.start({ env: { CONSOLE_DIR: work } });
  });
  afterAll(async () => {
    await gateway?.close();
    rmSync(top, { recursive: true, force: true });
  });

  it('states the policy the issue asks for', () => {
    expect(CONSOLE_HEADERS['Content-Security-Policy']).toBe(CSP);
  });

  it.each(['/console', '/console/', '/console/verify', '/console/files/8f0c5a1e', '/console/index.html'])(
    'answers %s with the page, without an API key, revalidated on every load',
    async (url) => {
      const res = await gateway.call(url, { key: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.text).toBe(INDEX);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expectConsoleHeaders(res.headers);
    },
  );

  it('serves a hashed asset with its type, cached for a year', async () => {
    const res = await gateway.call('/console/assets/index-Ab12.js', { key: null });
    expect(res.status).toBe(200);
    expect(res.text).toBe(SCRIPT);
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expectConsoleHeaders(res.headers);
  });

  it('answers a missing asset with 404 NOT_FOUND, not with the page', async () => {
    const res = await gateway.call('/console/assets/gone-Zz99.js', { key: null });
    expect(expectError('current', res, 404, 'NOT_FOUND').message).toBe(
      'No such console file: /console/assets/gone-Zz99.js',
    );
  });

  it('answers another method with the API’s 404, and leaves neighbouring paths to the API', async () => {
    const post = await gateway.call('/console', { key: null, method: 'POST', body: {} });
    expect(expectError('current', post, 404, 'NOT_FOUND').message).toBe('No such endpoint: POST /console');
    const beside = await gateway.call('/consoles', { key: null });
    expect(expectError('current', beside, 404, 'NOT_FOUND').message).toBe('No such endpoint: GET /consoles');
  });

  it('leaves the API as it was: no console header on an API reply', async () => {
    const res = await gateway.call('/v1/verify/disposable?email=a@mailinator.com');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBeNull();
  });
});

describe('the web console where it was not built', () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'ev-console-none-'));
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start({ env: { CONSOLE_DIR: empty } });
  });
  afterAll(async () => {
    await gateway?.close();
    rmSync(empty, { recursive: true, force: true });
  });

  it('starts, and answers /console with 404 NOT_FOUND in the error catalogue’s style, saying why', async () => {
    for (const url of ['/console', '/console/files']) {
      const res = await gateway.call(url, { key: null });
      const error = expectError('current', res, 404, 'NOT_FOUND');
      expect(error.message).toMatch(/^The web console is not built on this installation/);
    }
    const legacy = await gateway.call('/console', { key: null, style: 'legacy' });
    expectError('legacy', legacy, 404, 'NOT_FOUND');
    expect((await gateway.call('/v1/verify/disposable?email=a@mailinator.com')).status).toBe(200);
  });

  it('serves a console built after it started, from then on', async () => {
    mkdirSync(path.join(empty, 'assets'), { recursive: true });
    writeFileSync(path.join(empty, 'index.html'), INDEX);
    const res = await gateway.call('/console/keys', { key: null });
    expect(res.status).toBe(200);
    expect(res.text).toBe(INDEX);
    expectConsoleHeaders(res.headers);
  });
});

describe('the web console with no directory to serve it from', () => {
  let gateway: GatewayHarness;

  // A gateway built into an app of its own finds the console beside its entry (main.ts); one assembled in a test
  // or another program without CONSOLE_DIR has none.
  beforeAll(async () => {
    gateway = await GatewayHarness.start();
  });
  afterAll(async () => gateway?.close());

  it('answers /console with 404 NOT_FOUND in either style, naming CONSOLE_DIR, and the API as before', async () => {
    const res = await gateway.call('/console/files', { key: null });
    const error = expectError('current', res, 404, 'NOT_FOUND');
    expect(error.message).toBe(
      'The web console is not built on this installation: build it with npm run build, or set CONSOLE_DIR',
    );
    expectConsoleHeaders(res.headers);
    expectError('legacy', await gateway.call('/console', { key: null, style: 'legacy' }), 404, 'NOT_FOUND');
    expect((await gateway.call('/v1/verify/disposable?email=a@mailinator.com')).status).toBe(200);
  });
});
