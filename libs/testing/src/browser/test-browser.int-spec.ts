import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSession, TestBrowser } from './test-browser';

/** A page that passes: landmarks, a heading, a labelled field, enough contrast in both schemes. */
const CLEAN = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Clean</title>
<style>body{font:16px sans-serif;color:#111;background:#fff}
@media (prefers-color-scheme: dark){body{color:#eee;background:#111}}</style></head>
<body><main><h1>Clean page</h1><label for="e">E-mail address</label> <input id="e" type="email"></main></body></html>`;

/** Readable in the light scheme only: dark text on a dark background once the dark scheme applies. */
const DARK_ONLY_FAULT = CLEAN.replace('#eee;background:#111', '#222;background:#111').replace(
  '<title>Clean</title>',
  '<title>Dark fault</title>',
);

/** An input nobody labelled (axe: "label", critical). */
const UNLABELLED = CLEAN.replace('<label for="e">E-mail address</label> ', '').replace(
  '<title>Clean</title>',
  '<title>Unlabelled</title>',
);

/** Fine on a desktop, but wider than a phone. */
const WIDE = CLEAN.replace('</main>', '<div style="width:600px">A row that does not wrap</div></main>');

/** A page whose script reaches for another origin in every way a page can. */
function leaking(elsewhere: string): string {
  return CLEAN.replace(
    '</main>',
    `</main><img alt="" src="${elsewhere}/pixel.png"><script src="/leak.js"></script>`,
  ).replace('<title>Clean</title>', '<title>Leak</title>');
}

const LEAK_JS = (elsewhere: string) =>
  `fetch(${JSON.stringify(`${elsewhere}/beacon`)}).catch(() => undefined);
navigator.sendBeacon(${JSON.stringify(`${elsewhere}/ping`)}, 'x');`;

const BROKEN = CLEAN.replace('</main>', '</main><script src="/broken.js"></script>').replace(
  '<title>Clean</title>',
  '<title>Broken</title>',
);
const BROKEN_JS = `console.error('the chart has no data');
fetch('/missing').then(() => { throw new Error('unhandled in the page'); });`;

interface LoopbackServer {
  server: Server;
  url: string;
  requests: string[];
}

async function serve(
  routes: (url: string) => Record<string, [type: string, body: string]>,
): Promise<LoopbackServer> {
  const requests: string[] = [];
  let url = '';
  const server = createServer((req: IncomingMessage, res) => {
    requests.push(req.url ?? '');
    const found = routes(url)[req.url ?? ''];
    if (!found) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    res.writeHead(200, { 'content-type': `${found[0]}; charset=utf-8` }).end(found[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, requests };
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Chromium processes this test process started, with the profile directory each was given. */
function ownChromiumProfiles(): string[] {
  const profiles: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const profile = args.find((arg) => arg.startsWith('--user-data-dir='));
      if (profile) profiles.push(profile.slice('--user-data-dir='.length));
    } catch {
      // the process ended while being read
    }
  }
  return profiles;
}

describe('the browser-test harness, against pages on loopback', () => {
  let browser: TestBrowser;
  let site: LoopbackServer;
  let elsewhere: LoopbackServer;
  let shots: string;
  let session: BrowserSession | undefined;

  beforeAll(async () => {
    shots = await mkdtemp(path.join(tmpdir(), 'harness-shots-'));
    elsewhere = await serve(() => ({}));
    site = await serve(() => ({
      '/clean': ['text/html', CLEAN],
      '/dark-fault': ['text/html', DARK_ONLY_FAULT],
      '/unlabelled': ['text/html', UNLABELLED],
      '/wide': ['text/html', WIDE],
      '/leak': ['text/html', leaking(elsewhere.url)],
      '/leak.js': ['text/javascript', LEAK_JS(elsewhere.url)],
      '/broken': ['text/html', BROKEN],
      '/broken.js': ['text/javascript', BROKEN_JS],
    }));
    browser = await TestBrowser.launch();
  });

  afterEach(async () => {
    // Each test closes its own session and checks what that says; this only tidies up after a failure.
    await session?.context.close().catch(() => undefined);
    session = undefined;
  });

  afterAll(async () => {
    await browser?.close();
    for (const server of [site?.server, elsewhere?.server]) server?.close();
    if (shots) await rm(shots, { recursive: true, force: true });
  });

  const open = async (page: string, expected?: RegExp): Promise<BrowserSession> => {
    session = await browser.session({ origin: site.url, screenshotDir: shots });
    if (expected) session.expectErrors(expected);
    await session.page.goto(page);
    return session;
  };

  it('passes a clean page and photographs it in both schemes at 1280 and 375 px', async () => {
    const s = await open('/clean');
    await s.page.getByRole('heading', { name: 'Clean page' }).waitFor();
    await s.page.getByLabel('E-mail address').fill('jane@example.test');
    await s.audit('clean');
    for (const scheme of ['light', 'dark']) {
      expect(pngSize(path.join(shots, `clean-${scheme}-1280.png`)).width).toBe(1280);
      expect(pngSize(path.join(shots, `clean-${scheme}-375.png`)).width).toBe(375);
    }
    // The audit leaves the page as it found it.
    expect(s.page.viewportSize()).toEqual({ width: 1280, height: 800 });
    expect(await s.page.evaluate<boolean>("matchMedia('(prefers-color-scheme: dark)').matches")).toBe(false);
    expect(s.requests).toEqual([`${site.url}/clean`]);
    s.expectSameOrigin();
    await s.close();
  });

  it('scales a screenshot down for the docs', async () => {
    const s = await open('/clean');
    await s.audit('to-scale');
    const source = path.join(shots, 'to-scale-light-1280.png');
    const small = path.join(shots, 'small.png');
    const bytes = await browser.scalePng(source, small, { width: 640, height: 400 });
    expect(pngSize(small)).toEqual({ width: 640, height: 400 });
    expect(bytes).toBe(readFileSync(small).length);
    expect(bytes).toBeLessThan(readFileSync(source).length);
    await s.close();
  });

  it('reports a serious violation that only the dark scheme has', async () => {
    const s = await open('/dark-fault');
    const failure = await s.audit('dark-fault').then(
      () => 'passed',
      (err: Error) => err.message,
    );
    expect(failure).toContain('dark: serious color-contrast');
    expect(failure).not.toContain('light:');
    await s.close();
  });

  it('reports an unlabelled control as critical in both schemes', async () => {
    const s = await open('/unlabelled');
    const failure = await s.audit('unlabelled').then(
      () => 'passed',
      (err: Error) => err.message,
    );
    expect(failure).toContain('light: critical label');
    expect(failure).toContain('dark: critical label');
    await s.close();
  });

  it('reports a page that scrolls sideways at 375 px', async () => {
    const s = await open('/wide');
    await expect(s.audit('wide')).rejects.toThrow(
      /at 375 px wide the page is \d+ px wide .*: div \(600 px\)/,
    );
    await s.close();
  });

  it('refuses every request for another origin before it leaves, and reports each', async () => {
    const s = await open('/leak');
    const off = [`${elsewhere.url}/pixel.png`, `${elsewhere.url}/beacon`, `${elsewhere.url}/ping`];
    await expect.poll(() => s.offOrigin().sort()).toEqual([...off].sort());
    expect(() => s.expectSameOrigin()).toThrow(`${elsewhere.url}/beacon`);
    const closing = await s.close().then(
      () => 'passed',
      (err: Error) => err.message,
    );
    expect(closing).toContain(`requests for somewhere other than ${site.url}`);
    expect(closing).toContain(`${elsewhere.url}/pixel.png`);
    // Refused at the route level: the other server on loopback never heard of them.
    expect(elsewhere.requests).toEqual([]);
  });

  it('fails on console errors and uncaught page errors, unless a test expected them', async () => {
    const s = await open('/broken');
    await expect.poll(() => s.errors().length).toBe(3);
    const errors = s.errors().join('\n');
    expect(errors).toContain('console error: the chart has no data');
    expect(errors).toMatch(/console error: Failed to load resource: .*404/);
    expect(errors).toContain('page error: Error: unhandled in the page');
    await expect(s.close()).rejects.toThrow('console or page errors');

    const again = await open(
      '/broken',
      /the chart has no data|Failed to load resource: .*404|unhandled in the page/,
    );
    await expect.poll(() => again.requests.length).toBe(3);
    await again.page.waitForLoadState('networkidle');
    expect(again.errors()).toEqual([]);
    await again.close();
  });

  it('removes the browser and its temporary profile when closed', async () => {
    const before = new Set(ownChromiumProfiles());
    const own = await TestBrowser.launch();
    const profiles = ownChromiumProfiles().filter((profile) => !before.has(profile));
    expect(profiles).toHaveLength(1);
    expect(existsSync(profiles[0]!)).toBe(true);
    await own.close();
    expect(existsSync(profiles[0]!)).toBe(false);
    expect(ownChromiumProfiles()).not.toContain(profiles[0]);
  });
});
