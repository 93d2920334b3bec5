import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, ConsoleMessage, Page, WebError } from 'playwright-core';
import { repoRoot } from '../suite/processes';
import { type ChromiumBinary, findChromium } from './chromium';

export type ColourScheme = 'light' | 'dark';

/** The widths every audited page is photographed at: a desktop window and a small phone. */
export const DESKTOP = { width: 1280, height: 800 } as const;
export const NARROW_WIDTH = 375;

/** Where audits save their screenshots: `<page>-<scheme>-<width>.png` (under .data/, never committed). */
export const SCREENSHOT_DIR = path.join(repoRoot, '.data', 'console-screenshots');

/** The WCAG levels axe checks, and the impacts that fail a page. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa'];
const FAILING_IMPACTS = new Set(['serious', 'critical']);

/**
 * One headless Chromium for a test file (launch it in beforeAll, close it in afterAll): each test takes a
 * session of its own (`session()`), a fresh browser context with nothing shared. Closing the browser ends its
 * process and removes the temporary profile Playwright made for it.
 */
export class TestBrowser {
  private readonly sessions = new Set<BrowserSession>();

  private constructor(
    readonly browser: Browser,
    readonly binary: ChromiumBinary,
  ) {}

  static async launch(): Promise<TestBrowser> {
    const binary = await findChromium();
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: binary.executablePath,
      args: binary.args,
      env: { ...process.env, ...binary.env },
      headless: true,
    });
    return new TestBrowser(browser, binary);
  }

  /**
   * A fresh context whose pages may reach `origin` only: every request is recorded, and one for anywhere else is
   * refused before it leaves the browser (and reported by `close()`). Console errors and uncaught page errors are
   * collected and fail `close()` unless expected (`expectErrors`).
   */
  async session(options: { origin: string; screenshotDir?: string }): Promise<BrowserSession> {
    const context = await this.browser.newContext({
      baseURL: options.origin,
      viewport: { ...DESKTOP },
      colorScheme: 'light',
      reducedMotion: 'reduce',
      locale: 'en-GB',
      timezoneId: 'UTC',
      serviceWorkers: 'block',
      acceptDownloads: true,
    });
    const session = await BrowserSession.open(
      context,
      new URL(options.origin).origin,
      options.screenshotDir ?? SCREENSHOT_DIR,
    );
    this.sessions.add(session);
    session.onClose(() => this.sessions.delete(session));
    return session;
  }

  /**
   * Writes the PNG `source` as a smaller PNG `target` for the docs: scaled to `width` px wide and cut to `height`
   * px from the top, drawn by this browser (so no image library is needed). Returns the new file's size in bytes.
   */
  async scalePng(source: string, target: string, size: { width: number; height: number }): Promise<number> {
    const context = await this.browser.newContext({ viewport: size, deviceScaleFactor: 1 });
    try {
      const page = await context.newPage();
      const data = (await readFile(source)).toString('base64');
      await page.setContent(
        `<!doctype html><style>body{margin:0}img{display:block;width:${size.width}px}</style>` +
          `<img alt="" src="data:image/png;base64,${data}">`,
      );
      await page.locator('img').evaluate((img) => (img as unknown as { decode(): Promise<void> }).decode());
      await page.screenshot({ path: target, clip: { x: 0, y: 0, ...size } });
    } finally {
      await context.close();
    }
    return (await stat(target)).size;
  }

  async close(): Promise<void> {
    for (const session of [...this.sessions]) await session.context.close().catch(() => undefined);
    await this.browser.close();
  }
}

/** What a page did that a test did not ask for. */
export interface SessionProblems {
  /** Requests for anywhere but the session's origin (refused at the route level). */
  offOrigin: string[];
  /** Console errors and uncaught page errors nobody expected. */
  errors: string[];
}

/** One test's browser context and page, with what they requested and what went wrong in them. */
export class BrowserSession {
  /** Every request's URL, in the order made (off-origin ones too: they were refused, not hidden). */
  readonly requests: string[] = [];
  private readonly unexpected: string[] = [];
  private readonly expected: RegExp[] = [];
  private closed = false;
  private readonly closeHooks: (() => void)[] = [];

  /** The session's first page (a test may open more in `context`). */
  page!: Page;

  private constructor(
    readonly context: BrowserContext,
    readonly origin: string,
    /** Where `audit` saves screenshots (SCREENSHOT_DIR unless the session was given another). */
    readonly screenshotDir: string,
  ) {}

  static async open(context: BrowserContext, origin: string, screenshotDir: string): Promise<BrowserSession> {
    // Routes and listeners go on before the first page exists, so its first request is seen too.
    const session = new BrowserSession(context, origin, screenshotDir);
    const isLocal = (url: string) => staysWith(url, origin);
    context.on('request', (request) => session.requests.push(request.url()));
    context.on('console', (message) => session.consoleMessage(message));
    context.on('weberror', (error) => session.pageError(error));
    await context.route(
      (url) => !isLocal(url.href),
      (route) => route.abort('blockedbyclient'),
    );
    await context.routeWebSocket(
      () => true,
      (socket) => {
        session.requests.push(socket.url());
        if (isLocal(socket.url())) socket.connectToServer();
        else void socket.close({ code: 1008, reason: 'off-origin' });
      },
    );
    session.page = await context.newPage();
    return session;
  }

  /** URLs requested for anywhere but the session's origin. */
  offOrigin(): string[] {
    return this.requests.filter((url) => !staysWith(url, this.origin));
  }

  /** Fails when any request went (or tried to go) anywhere but the session's origin. */
  expectSameOrigin(): void {
    const off = this.offOrigin();
    if (off.length > 0)
      throw new Error(`requests for somewhere other than ${this.origin}:\n  ${off.join('\n  ')}`);
  }

  /**
   * Console errors matching `pattern` are expected from now on (e.g. Chromium's "Failed to load resource: … 401"
   * after a key is revoked) and do not fail the session.
   */
  expectErrors(pattern: RegExp): void {
    this.expected.push(pattern);
  }

  /** Console errors and page errors so far that nobody expected. */
  errors(): string[] {
    return [...this.unexpected];
  }

  problems(): SessionProblems {
    return { offOrigin: this.offOrigin(), errors: this.errors() };
  }

  /**
   * Checks the page as it stands, in the light and the dark colour scheme: axe-core (WCAG 2.0 A and AA, 2.1 AA)
   * must find no serious or critical violation, and the page must fit 375 px without scrolling sideways.
   * Saves `<name>-<scheme>-<width>.png` (whole page) at 1280 and 375 px into `screenshotDir`. Leaves the page in
   * the light scheme at the desktop size.
   */
  async audit(name: string, page: Page = this.page): Promise<void> {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(name))
      throw new Error(`audit: "${name}" is not a file-name-safe page name`);
    const { default: AxeBuilder } = await import('@axe-core/playwright');
    await mkdir(this.screenshotDir, { recursive: true });
    const problems: string[] = [];
    try {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ ...DESKTOP });
        await settled(page);
        const results = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
        for (const violation of results.violations) {
          if (!FAILING_IMPACTS.has(violation.impact ?? '')) continue;
          const where = violation.nodes.map(
            (node) => `${node.target.join(' ')}: ${node.failureSummary ?? ''}`,
          );
          problems.push(
            `${scheme}: ${violation.impact} ${violation.id} (${violation.help})\n    ${where.join('\n    ')}`,
          );
        }
        for (const width of [DESKTOP.width, NARROW_WIDTH]) {
          await page.setViewportSize({ width, height: DESKTOP.height });
          await settled(page);
          await page.screenshot({
            path: path.join(this.screenshotDir, `${name}-${scheme}-${width}.png`),
            fullPage: true,
            animations: 'disabled',
          });
          if (width !== NARROW_WIDTH) continue;
          const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
          if (wide > width) {
            const culprits = await page.evaluate<string[]>(WIDEST_ELEMENTS);
            problems.push(
              `${scheme}: at ${width} px wide the page is ${wide} px wide (it scrolls sideways): ${culprits.join(', ')}`,
            );
          }
        }
      }
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ ...DESKTOP });
    }
    if (problems.length > 0) throw new Error(`page "${name}":\n  ${problems.join('\n  ')}`);
  }

  /**
   * Closes the context (its pages and downloads), then fails if a request went anywhere but the origin or an
   * unexpected console or page error happened. Call it in afterEach, so such a problem fails the test.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context.close();
    for (const hook of this.closeHooks) hook();
    const { offOrigin, errors } = this.problems();
    const said: string[] = [];
    if (offOrigin.length > 0) said.push(`requests for somewhere other than ${this.origin}:`, ...offOrigin);
    if (errors.length > 0) said.push('console or page errors:', ...errors);
    if (said.length > 0) throw new Error(said.join('\n  '));
  }

  /** @internal for TestBrowser */
  onClose(hook: () => void): void {
    this.closeHooks.push(hook);
  }

  private consoleMessage(message: ConsoleMessage): void {
    if (message.type() !== 'error') return;
    const location = message.location();
    this.unexpectedUnlessExpected(
      `console error: ${message.text()} (${location.url}:${location.lineNumber})`,
    );
  }

  private pageError(error: WebError): void {
    const thrown = error.error();
    this.unexpectedUnlessExpected(`page error: ${thrown.stack ?? thrown.message}`);
  }

  private unexpectedUnlessExpected(text: string): void {
    if (!this.expected.some((pattern) => pattern.test(text))) this.unexpected.push(text);
  }
}

/**
 * Whether a request for `url` stays with `origin`: same scheme, host and port, or nothing fetched at all (data:,
 * and blob: or about: URLs of the page itself).
 */
export function staysWith(url: string, origin: string): boolean {
  if (url.startsWith('data:') || url === 'about:blank' || url === 'about:srcdoc') return true;
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

/**
 * The innermost elements that stick out past the window's right edge, as `tag.class (width px)`: where to look
 * when a page scrolls sideways. What a scrolling box clips (a wide table in its wrapper) counts as that box,
 * which is at fault only when it sticks out itself. Run in the page.
 */
const WIDEST_ELEMENTS = `(() => {
  const edge = document.documentElement.clientWidth + 1;
  const out = (el) => el.getBoundingClientRect().right > edge;
  // The box that clips el: the nearest scrolling ancestor, but an absolutely positioned element escapes every
  // one below its containing block (the nearest positioned ancestor).
  const scroller = (el) => {
    const position = getComputedStyle(el).position;
    let escapes = position === 'absolute' || position === 'fixed';
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (!escapes && style.overflowX !== 'visible') return up;
      if (position === 'absolute' && style.position !== 'static') escapes = false;
    }
    return undefined;
  };
  const culprits = new Set();
  for (const el of document.body.querySelectorAll('*')) {
    if (!out(el)) continue;
    const box = scroller(el);
    if (!box) culprits.add(el);
    else if (out(box)) culprits.add(box);
  }
  const named = (el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  return [...culprits]
    .filter((el) => ![...culprits].some((other) => other !== el && el.contains(other)))
    .slice(0, 5)
    .map((el) => named(el) + ' (' + Math.round(el.getBoundingClientRect().width) + ' px)');
})()`;

/** Waits two animation frames, so a layout after a resize or a scheme change has been painted. */
async function settled(page: Page): Promise<void> {
  // A string: this project's TypeScript has no DOM types, and the code runs in the page.
  await page.evaluate(
    'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
  );
}
