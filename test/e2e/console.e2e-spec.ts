// The web console, driven in a real Chromium against the real services and a mail world on loopback: what a
// person does with it, page by page. Every page visited is audited (axe-core in the light and the dark scheme, no
// sideways scrolling at 375 px) and photographed into .data/console-screenshots/; no request may leave the
// gateway's origin. CONSOLE_DOCS_SCREENSHOTS=1 also writes the README's two small images into docs/.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type Account,
  type BrowserSession,
  MailWorld,
  repoRoot,
  SCREENSHOT_DIR,
  TestBrowser,
  TestSuite,
  verifySignatures,
  WebhookReceiver,
} from '@emailverify/testing';
import Papa from 'papaparse';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/** Role mailboxes of the 200-row list (each a `role` verdict). */
const ROLES = [
  'info',
  'sales',
  'support',
  'admin',
  'contact',
  'billing',
  'help',
  'marketing',
  'office',
  'webmaster',
];

/**
 * A list of 200 people with a name and a company beside each address: 150 valid, 30 on a domain that does not
 * exist, 10 role mailboxes and 10 disposable ones, in that order.
 */
function leads(): { csv: string; expected: Record<string, number> } {
  const rows = ['name,email,company'];
  for (let i = 0; i < 150; i++) rows.push(`Person ${i},person${i}@console.test,Acme ${i % 7}`);
  for (let i = 0; i < 30; i++) rows.push(`Gone ${i},gone${i}@nx.console.test,Defunct`);
  for (const role of ROLES) rows.push(`Team ${role},${role}@console.test,Acme`);
  for (let i = 0; i < 10; i++) rows.push(`Temp ${i},temp${i}@mailinator.com,Nowhere`);
  return {
    csv: `${rows.join('\n')}\n`,
    expected: {
      Valid: 150,
      Invalid: 30,
      Unknown: 0,
      'Catch-all': 0,
      'Role account': 10,
      Disposable: 10,
      Risky: 0,
    },
  };
}

/** The slow mail server's delay before each reply, and the rows of the list verified against it. */
const SLOW_SMTP_MS = 300;
const SLOW_ROWS = 400;

/** A <progress> bar's value (run in the page). */
const valueOf = (bar: unknown): number => (bar as { value: number }).value;

/** A CSV's rows, each a list of cells (for comparing two downloads). */
function csvRows(text: string): string[][] {
  return Papa.parse<string[]>(text.trimEnd()).data;
}

/** The README's images: the top of a page's desktop screenshot, scaled down, at most DOCS_IMAGE_MAX_BYTES each. */
const DOCS_IMAGES = [
  { page: 'verify', file: 'docs/console-verify.png', size: { width: 800, height: 500 } },
  { page: 'job', file: 'docs/console-files.png', size: { width: 800, height: 640 } },
];
const DOCS_IMAGE_MAX_BYTES = 150 * 1024;

describe('the web console, in a browser', () => {
  let world: MailWorld;
  let receiver: WebhookReceiver;
  let suite: TestSuite;
  let browser: TestBrowser;
  let account: Account;
  const sessions: BrowserSession[] = [];
  /** Pages audited so far (each once is enough: the audit is the same whoever looks). */
  const audited = new Set<string>();

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('console.test', {
        mx: [
          { priority: 10, host: 'mx.console.test', smtp: { mailboxes: ['jane', 'bob', 'ann', ...ROLES] } },
        ],
      })
      .domain('nx.console.test', { nxdomain: true })
      // A mail server slow to answer: a list checked over SMTP against it runs long enough to pause and cancel.
      .domain('slow.console.test', {
        mx: [{ priority: 10, host: 'mx.slow.console.test', smtp: { catchAll: true, delayMs: SLOW_SMTP_MS } }],
      })
      .domain('mailinator.com', {
        mx: [{ priority: 10, host: 'mx.mailinator.com', smtp: { catchAll: true } }],
      });
    receiver = await WebhookReceiver.start();
    [suite, browser] = await Promise.all([
      TestSuite.start({
        world,
        env: {
          NODE_EXTRA_CA_CERTS: receiver.caFile,
          // The receiver lives on loopback.
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_POLL_INTERVAL_MS: '100',
          SMTP_MAX_CONCURRENCY_PER_MX: '50',
          // Small chunks, so a 200-row file's progress moves in steps a person can watch.
          FILE_CHUNK_SIZE: '20',
          // Two chunks under way at once: a paused list stops after those two, with the rest still queued.
          FILE_CHUNKS_IN_FLIGHT: '2',
        },
      }),
      TestBrowser.launch(),
    ]);
    account = await suite.createAccount({ credits: 10_000, name: 'Console tour' });
  });

  afterEach(async (context) => {
    // Each session's close() fails the test on an off-origin request or an unexpected console or page error.
    const open = sessions.splice(0);
    const failures: unknown[] = [];
    if (context.task.result?.state === 'fail') {
      // What the page showed when the test failed, beside the audits' screenshots.
      const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      for (const [i, session] of open.entries()) {
        await session.page
          .screenshot({ path: path.join(SCREENSHOT_DIR, `failed-${name}-${i}.png`), fullPage: true })
          .catch(() => undefined);
      }
    }
    for (const session of open) await session.close().catch((err: unknown) => failures.push(err));
    if (failures.length > 0) throw failures[0];
  });

  afterAll(async () => {
    if (process.env.CONSOLE_DOCS_SCREENSHOTS && browser) {
      for (const { page, file, size } of DOCS_IMAGES) {
        const source = path.join(SCREENSHOT_DIR, `${page}-light-1280.png`);
        const bytes = await browser.scalePng(source, path.join(repoRoot, file), size);
        if (bytes > DOCS_IMAGE_MAX_BYTES)
          throw new Error(`${file} is ${bytes} bytes, over ${DOCS_IMAGE_MAX_BYTES}`);
      }
    }
    await browser?.close();
    await suite?.stop();
    await receiver?.stop();
  });

  /** A fresh browser context on the gateway, closed (and checked) after the test. */
  async function openSession(): Promise<BrowserSession> {
    const session = await browser.session({ origin: suite.gatewayUrl() });
    sessions.push(session);
    return session;
  }

  /** Audits the page once per run under `name` (axe in both schemes, 375 px, screenshots). */
  async function audit(session: BrowserSession, name: string): Promise<void> {
    if (audited.has(name)) return;
    audited.add(name);
    await session.audit(name);
  }

  /** Opens the console and signs in with `key`, as a person would; ends on the overview. */
  async function signIn(session: BrowserSession, key: string): Promise<void> {
    const { page } = session;
    await page.goto('/console/');
    await page.getByRole('heading', { name: /sign in/i }).waitFor();
    await audit(session, 'sign-in');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  }

  /** What has the keyboard's focus: its accessible text, and whether a focus ring is drawn around it. */
  const focused = (session: BrowserSession) =>
    session.page.evaluate<{ text: string; ring: boolean }>(`(() => {
      const el = document.activeElement;
      const style = el ? getComputedStyle(el) : undefined;
      return {
        text: el ? (el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || '').trim() : '',
        ring: Boolean(style && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2),
      };
    })()`);

  /**
   * Signs in with the keyboard alone: Tab to the key's field (with a visible focus ring), type, Enter; then Tab
   * reaches the skip link first, and Enter on it moves on to the page's content.
   */
  async function signInByKeyboard(session: BrowserSession, key: string): Promise<void> {
    const { page } = session;
    await page.goto('/console/');
    await page.getByLabel('API key').waitFor();
    await page.keyboard.press('Tab');
    expect(await focused(session)).toEqual({ text: 'api-key', ring: true });
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await focused(session)).toEqual({ text: 'Skip to content', ring: true });
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
  }

  /** Follows a link of the main navigation and waits for the page's heading. */
  async function navigate(session: BrowserSession, link: string, heading = link): Promise<void> {
    await session.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
    await session.page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  it('signs in with a key kept in the tab only, shows a first visit, and signs out', async () => {
    const session = await openSession();
    const { page } = session;
    await signIn(session, account.apiKey);
    // A new account: its balance, and an invitation to upload a first list.
    await page.getByRole('region', { name: 'Upload your first list' }).waitFor();
    await page.getByRole('region', { name: 'Balance' }).getByText('10,000 credits').waitFor();
    await page.getByRole('img', { name: /Bar chart of credits used per day/ }).waitFor();
    await audit(session, 'overview-first-visit');

    // The key lives in this tab's sessionStorage: never in a URL, a cookie or localStorage.
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(account.apiKey);
    expect(await page.evaluate<string[]>('Object.values(localStorage)')).toEqual([]);
    expect(await session.context.cookies()).toEqual([]);
    expect(session.requests.filter((url) => url.includes(account.apiKey))).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).not.toContain(account.apiKey);
    session.expectSameOrigin();
  });

  it('refuses a wrong key in plain words', async () => {
    const session = await openSession();
    session.expectErrors(/Failed to load resource: .* 401/);
    const { page } = session;
    await page.goto('/console/');
    await page.getByLabel('API key').fill('ev_not_a_key_of_anyone');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).not.toMatch(/[{}]/);
    await audit(session, 'sign-in-refused');
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toEqual([]);
  });

  it('verifies one address with its result card, takes a suggestion, and verifies a pasted list', async () => {
    const session = await openSession();
    const { page } = session;
    await signIn(session, account.apiKey);
    await navigate(session, 'Verify');

    const single = page.getByRole('region', { name: 'One address' });
    const address = single.getByLabel('E-mail address');
    await address.fill('jane@gmial.com');
    await single.getByRole('button', { name: 'Verify' }).click();
    const suggestion = single.getByRole('button', { name: 'jane@gmail.com' });
    await suggestion.click();
    expect(await address.inputValue()).toBe('jane@gmail.com');

    await address.fill('jane@console.test');
    await single.getByLabel(/Ask the mail server/).check();
    await single.getByRole('button', { name: 'Verify' }).click();
    const card = single.getByRole('article', { name: 'jane@console.test' });
    await card.waitFor();
    const said = await card.innerText();
    expect(said).toContain('Valid');
    expect(said).toContain('Deliverable');
    expect(said).toContain('mx.console.test');
    expect(said).toContain('The mail server accepted this mailbox.');

    const bulk = page.getByRole('region', { name: 'Several addresses' });
    await bulk
      .getByLabel(/Addresses, one per line/)
      .fill('bob@console.test\nghost@nx.console.test\ninfo@console.test\n');
    await bulk.getByRole('button', { name: 'Verify 3 addresses' }).click();
    const table = bulk.getByRole('table', { name: 'Results of the addresses verified' });
    await table.waitFor();
    const rows = await table.getByRole('row').allInnerTexts();
    expect(
      rows.slice(1).map((row) =>
        row
          .split('\t')
          .slice(0, 2)
          .map((cell) => cell.trim()),
      ),
    ).toEqual([
      ['bob@console.test', expect.stringContaining('Valid')],
      ['ghost@nx.console.test', expect.stringContaining('Invalid')],
      ['info@console.test', expect.stringContaining('Role account')],
    ]);
    await audit(session, 'verify');
    session.expectSameOrigin();
  });

  it('says when the browser is offline, holds a verification, and sends it once back', async () => {
    const session = await openSession();
    const { page, context } = session;
    await signIn(session, account.apiKey);
    await navigate(session, 'Verify');
    await context.setOffline(true);
    const banner = page.getByRole('status').filter({ hasText: 'You are offline' });
    await banner.waitFor();

    // Nothing is sent while offline (a request would fail, and fail this test with its console error).
    const single = page.getByRole('region', { name: 'One address' });
    await single.getByLabel('E-mail address').fill('ann@console.test');
    await single.getByRole('button', { name: 'Verify' }).click();
    await single.getByText('the verification waits for the connection').waitFor();
    await audit(session, 'verify-offline');

    await context.setOffline(false);
    await banner.waitFor({ state: 'detached' });
    await single.getByRole('article', { name: 'ann@console.test' }).waitFor();
    session.expectSameOrigin();
  });

  it('creates a key shown once, revokes it, and a browser signed in with it is signed out', async () => {
    const owner = await openSession();
    await signIn(owner, account.apiKey);
    await navigate(owner, 'Keys & usage');
    const page = owner.page;

    // The ledger already holds the account's opening grant.
    const ledger = page.getByRole('table', { name: /Credit ledger, newest first/ });
    await ledger.getByRole('row').nth(1).waitFor();

    const create = page.getByRole('form', { name: 'Create a key' });
    await create.getByLabel('Name').fill('second browser');
    await create.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('API key', { exact: true });
    await shown.waitFor();
    const secondKey = await shown.inputValue();
    expect(secondKey).toMatch(/^ev_/);
    await page.getByText('it will not be shown again').waitFor();
    await audit(owner, 'keys');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);

    // A key cannot revoke itself: the page explains the way round instead.
    const keys = page.getByRole('table', { name: 'Your API keys, oldest first' });
    const own = keys.getByRole('row').filter({ hasText: 'Signed in with this key' });
    await own.getByRole('button', { name: 'Revoke' }).click();
    const explained = page.getByRole('dialog', { name: 'This is the key you are signed in with' });
    await explained.waitFor();
    await explained.getByRole('button', { name: 'Keep it' }).click();

    const other = await openSession();
    await signIn(other, secondKey);
    await navigate(other, 'Verify');

    const row = keys.getByRole('row').filter({ hasText: 'second browser' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke the key “second browser”?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('status').filter({ hasText: 'was revoked' }).waitFor();
    await row.getByText('Revoked').waitFor();

    // The other browser's next request with the revoked key signs it out, saying why.
    other.expectErrors(/Failed to load resource: .* 401/);
    const single = other.page.getByRole('region', { name: 'One address' });
    await single.getByLabel('E-mail address').fill('jane@console.test');
    await single.getByRole('button', { name: 'Verify' }).click();
    await other.page.getByLabel('API key').waitFor();
    expect(await other.page.getByRole('alert').innerText()).toMatch(/no longer accepts that API key/);
    expect(await other.page.evaluate<string[]>('Object.values(sessionStorage)')).toEqual([]);
    await audit(other, 'signed-out');
    owner.expectSameOrigin();
    other.expectSameOrigin();
  });

  it('creates a webhook, shows its secret once, and lists a delivery in its log', async () => {
    const session = await openSession();
    const { page, context } = session;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.gatewayUrl() });
    await signIn(session, account.apiKey);
    await navigate(session, 'Webhooks');
    await page.getByText('No webhooks yet').waitFor();

    const form = page.getByRole('form', { name: 'Add a webhook' });
    await form.getByLabel('Address that receives the notifications').fill(receiver.url('/console-hook'));
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const secretField = page.getByLabel('Signing secret', { exact: true });
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.getByLabel('Signing secret', { exact: true }).count()).toBe(0);

    // A list finishes; its file.completed notification reaches the receiver, signed with the secret shown.
    const job = await suite.upload({
      key: account.apiKey,
      file: { name: 'hooked.csv', content: 'email\njane@console.test\nbob@console.test\n' },
    });
    expect(job.status, job.text).toBe(200);
    const [delivery] = await receiver.waitFor('/console-hook', 1);
    expect(verifySignatures({ secret, headers: delivery!.headers, rawBody: delivery!.rawBody })).toEqual({
      xWebhookSignature: true,
      standardWebhooks: true,
    });

    const card = page.getByRole('article', { name: receiver.url('/console-hook') });
    await card.getByRole('button', { name: 'Show deliveries' }).click();
    const log = card.getByRole('table', { name: 'Deliveries, newest first' });
    const first = log.getByRole('row').filter({ hasText: 'List finished' });
    await first.getByText('Delivered').waitFor();
    expect(await first.innerText()).toContain('HTTP 200');
    await audit(session, 'webhooks');

    await first.getByRole('button', { name: 'Redeliver' }).click();
    expect(await receiver.waitFor('/console-hook', 2)).toHaveLength(2);
    // The log catches up with the second attempt by itself.
    await first.getByText('2 attempts').waitFor();
    await first.getByText('Delivered').waitFor();

    const disabled = card.getByText('Disabled: no new deliveries are made');
    await card.getByRole('button', { name: 'Disable' }).click();
    await disabled.waitFor();
    await card.getByRole('button', { name: 'Enable' }).click();
    await disabled.waitFor({ state: 'detached' });
    await card.getByRole('button', { name: 'Disable' }).waitFor();
    session.expectSameOrigin();
  });

  it("rotates a webhook's secret from its card, shows the new one once, and deliveries verify with it", async () => {
    // A webhook whose receiver holds its first secret, added through the API.
    const url = receiver.url('/console-rotated');
    const made = await suite.call('/v1/webhooks', {
      key: account.apiKey,
      body: { url, events: ['file.completed'] },
    });
    expect(made.status, made.text).toBe(200);
    const oldSecret = made.json.data.secret as string;

    const session = await openSession();
    const { page } = session;
    await signIn(session, account.apiKey);
    await navigate(session, 'Webhooks');
    const card = page.getByRole('article', { name: url });
    await card.getByText('Never rotated').waitFor();
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await confirm.getByText(/signed with both the current secret and the new one/).waitFor();
    await confirm.getByRole('button', { name: 'Rotate secret' }).click();
    await confirm.waitFor({ state: 'hidden' });

    // Shown once, in the card, its field focused for copying; the old secret keeps signing for a while.
    const once = card.getByRole('region', { name: 'New signing secret' });
    const field = once.getByLabel('Signing secret', { exact: true });
    const newSecret = await field.inputValue();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    await expect.poll(() => page.evaluate<string>('document.activeElement.value')).toBe(newSecret);
    await once.getByText('it will not be shown again').waitFor();
    await once.getByText(/deliveries are signed with both the previous secret and this one/).waitFor();
    await card.getByText(/the previous secret also signs until/).waitFor();
    await audit(session, 'webhook-rotated');
    await once.getByRole('button', { name: 'I have saved it' }).click();
    await once.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Signing secret', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(newSecret);

    // A list finishes; its notification verifies with the new secret. During the overlap `webhook-signature`
    // also carries the old secret's signature and X-Webhook-Signature stays the old secret's (docs/api.md,
    // "Rotating the secret"), so a receiver not yet switched keeps working.
    const job = await suite.upload({
      key: account.apiKey,
      file: { name: 'rotated.csv', content: 'email\nann@console.test\n' },
    });
    expect(job.status, job.text).toBe(200);
    const [delivery] = await receiver.waitFor('/console-rotated', 1);
    const signed = { headers: delivery!.headers, rawBody: delivery!.rawBody };
    expect(delivery!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifySignatures({ secret: newSecret, ...signed })).toEqual({
      xWebhookSignature: false,
      standardWebhooks: true,
    });
    expect(verifySignatures({ secret: oldSecret, ...signed })).toEqual({
      xWebhookSignature: true,
      standardWebhooks: true,
    });
    session.expectSameOrigin();
  });

  it('uploads a 200-row CSV, watches it reach 100 %, charts its verdicts and downloads the valid rows', async () => {
    const { csv, expected } = leads();
    const session = await openSession();
    const { page } = session;
    await signIn(session, account.apiKey);
    await navigate(session, 'Files');

    await page.getByLabel('Or choose a file of addresses').setInputFiles({
      name: 'leads-200.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    // Read in the browser before anything is sent: the address column, found among the three.
    const column = page.getByLabel('Address column');
    await column.waitFor();
    expect(await column.locator('option:checked').innerText()).toMatch(/^email \(/);
    expect((await column.locator('option').allInnerTexts()).length).toBe(3);
    await audit(session, 'files-chosen');
    await page.getByRole('button', { name: 'Upload and verify' }).click();
    const accepted = page.getByRole('status').filter({ hasText: 'leads-200.csv was accepted' });
    await accepted.waitFor();
    expect(await accepted.innerText()).toContain('200 unique addresses from 200 rows');
    await accepted.getByRole('link', { name: 'Follow the verification of leads-200.csv' }).click();

    await page.getByRole('heading', { level: 1, name: 'leads-200.csv' }).waitFor();
    const jobId = page.url().split('/').at(-1)!;
    const progress = page.getByRole('progressbar', { name: 'Verification progress' });
    // Followed as it runs: the bar only ever moves forward, up to 100.
    const seen: number[] = [];
    await expect
      .poll(
        async () => {
          seen.push(await progress.evaluate(valueOf));
          return seen.at(-1);
        },
        { timeout: 120_000, interval: 250 },
      )
      .toBe(100);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    await page.getByText('200 of 200 addresses verified (100%)').waitFor();
    const summary = Object.entries(expected)
      .map(([verdict, count]) => `${verdict} ${count}`)
      .join(', ');
    await page.getByRole('img', { name: `Bar chart of the verdicts: ${summary}.` }).waitFor();
    const table = page.getByRole('table', { name: 'Addresses per verdict' });
    for (const [verdict, count] of Object.entries(expected)) {
      const row = table
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: verdict, exact: true }) });
      expect(await row.getByRole('cell').first().innerText()).toBe(String(count));
    }
    await audit(session, 'job');

    // The valid rows (ticked by default), as the API's filtered download has them.
    const [validOnly] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the ticked verdicts' }).click(),
    ]);
    const fromConsole = await readFile((await validOnly.path())!, 'utf8');
    const fromApi = await suite.call(`/v1/verify/file/${jobId}/results?valid=true`, { key: account.apiKey });
    expect(fromApi.status).toBe(200);
    expect(csvRows(fromConsole)).toEqual(csvRows(fromApi.text));
    expect(csvRows(fromConsole)).toHaveLength(1 + 150);

    // Every row, through the job's signed link on the console's own origin.
    const [all] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download all rows' }).click(),
    ]);
    const everyRow = csvRows(await readFile((await all.path())!, 'utf8'));
    expect(everyRow).toHaveLength(1 + 200);
    expect(everyRow.slice(1).map((row) => row[1])).toEqual(
      csvRows(csv)
        .slice(1)
        .map((row) => row[1]),
    );

    await page.getByRole('link', { name: 'All lists' }).click();
    const listed = page.getByRole('listitem').filter({ hasText: 'leads-200.csv' });
    await listed.getByText('Completed').first().waitFor();
    expect(await listed.getByRole('progressbar').evaluate(valueOf)).toBe(100);
    await audit(session, 'files');
    await navigate(session, 'Overview');
    await page.getByRole('region', { name: 'Recent lists' }).getByText('leads-200.csv').waitFor();
    await audit(session, 'overview');
    await navigate(session, 'Files');

    // Deleting asks first, then the list is gone with its files.
    await listed.getByRole('button', { name: 'Delete leads-200.csv' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete leads-200.csv?' });
    await confirm.getByRole('button', { name: 'Delete the job' }).click();
    await listed.waitFor({ state: 'detached' });
    const gone = await suite.call(`/v1/verify/file/${jobId}`, { key: account.apiKey });
    expect(gone.status).toBe(404);
    session.expectSameOrigin();
  }, 240_000);

  it('pauses a list being verified, resumes it, and cancels it after asking', async () => {
    const session = await openSession();
    const { page } = session;
    await signIn(session, account.apiKey);

    // Checked over SMTP against the slow server (an API upload: the console's own uploads do not ask for it).
    const name = 'slow-list.csv';
    const emails = Array.from({ length: SLOW_ROWS }, (_, i) => `slow${i}@slow.console.test`);
    const up = await suite.upload({
      key: account.apiKey,
      file: { name, content: `email\n${emails.join('\n')}\n` },
      fields: { check_smtp: 'true' },
    });
    expect(up.status, up.text).toBe(200);
    const jobId = up.json.data.task_id as string;
    const status = async () =>
      (await suite.call(`/v1/verify/file/${jobId}`, { key: account.apiKey })).json.data as {
        status: string;
        progress: number;
        processed_emails: number;
      };

    await navigate(session, 'Files');
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
    const progress = page.getByRole('region', { name: 'Progress' });
    const bar = progress.getByRole('progressbar', { name: 'Verification progress' });
    await progress.getByText(/Verifying$/).waitFor();

    await progress.getByRole('button', { name: `Pause ${name}` }).click();
    await progress.getByText(/Paused$/).waitFor();
    await progress
      .getByRole('status')
      .filter({ hasText: `Paused: ${name}.` })
      .waitFor();
    await progress.getByRole('button', { name: `Resume ${name}` }).waitFor();
    expect(await progress.getByRole('button', { name: `Pause ${name}` }).count()).toBe(0);
    // The Pause button went with the running state; the focus went to Resume, in its place.
    await expect.poll(async () => (await focused(session)).text).toBe(`Resume ${name}`);
    expect((await status()).status).toBe('paused');

    // No new chunk starts; once the two under way have ended, the job holds where it is, the rest queued.
    await expect
      .poll(
        async () =>
          (
            await suite.sql<{ n: number }>(
              `SELECT count(*)::int AS n FROM files.job_chunks WHERE job_id = $1 AND status = 'published'`,
              [jobId],
            )
          )[0]!.n,
        { timeout: 60_000, interval: 250 },
      )
      .toBe(0);
    const held = await status();
    expect(held.status).toBe('paused');
    expect(held.processed_emails).toBeLessThan(SLOW_ROWS);
    // Seen afresh, the page shows the same figure, which stays put while the job is paused.
    await page.reload();
    await progress.getByText(`${held.processed_emails} of ${SLOW_ROWS} addresses verified`).waitFor();
    const heldAt = await bar.evaluate(valueOf);
    expect(heldAt).toBe(Math.floor(held.progress));
    await audit(session, 'job-paused');
    expect((await status()).processed_emails).toBe(held.processed_emails);
    expect(await bar.evaluate(valueOf)).toBe(heldAt);

    // Cancelling asks first, by the keyboard: focus starts on the safe choice, and Escape keeps the job.
    const cancel = progress.getByRole('button', { name: `Cancel ${name}` });
    const confirm = page.getByRole('dialog', { name: `Cancel verifying ${name}?` });
    await cancel.focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    expect(await focused(session)).toEqual({ text: 'Keep it running', ring: true });
    await audit(session, 'job-cancel');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'hidden' });
    expect((await status()).status).toBe('paused');

    // Resumed, it moves on again.
    await progress.getByRole('button', { name: `Resume ${name}` }).click();
    await progress
      .getByRole('status')
      .filter({ hasText: `Resumed: ${name}.` })
      .waitFor();
    await progress.getByText(/Verifying$/).waitFor();
    await expect
      .poll(() => bar.evaluate(valueOf), { timeout: 60_000, interval: 250 })
      .toBeGreaterThan(heldAt);

    // Cancelled through the dialog: Tab from the safe choice to the cancelling button.
    await cancel.focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Tab');
    expect(await focused(session)).toEqual({ text: 'Cancel the job', ring: true });
    await page.keyboard.press('Enter');

    await progress.getByText(/Cancelled$/).waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: `${name}: Cancelled.` })
      .waitFor();
    for (const action of ['Pause', 'Resume', 'Cancel'])
      expect(await progress.getByRole('button', { name: `${action} ${name}` }).count()).toBe(0);
    // The Cancel button went away with the running job: the focus is on the action left, not lost.
    await expect.poll(() => focused(session)).toEqual({ text: `Delete ${name}`, ring: true });
    const cancelled = await status();
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.processed_emails).toBeLessThan(SLOW_ROWS);
    session.expectSameOrigin();
  });

  it("marks every page of a sandbox key's tour, and charges nothing", async () => {
    const made = await suite.call('/v1/keys', {
      key: account.apiKey,
      body: { name: 'sandbox tour', sandbox: true },
    });
    expect(made.status, made.text).toBe(200);
    const sandboxKey = made.json.data.api_key as string;
    const balance = async () =>
      (await suite.call('/v1/credits', { key: account.apiKey })).json.data.credits_balance as number;
    const before = await balance();

    const session = await openSession();
    await signInByKeyboard(session, sandboxKey);
    const marker = session.page.getByText('Sandbox key', { exact: true });
    await marker.waitFor();
    await audit(session, 'overview-sandbox');
    for (const link of ['Webhooks', 'Keys & usage', 'Overview', 'Verify']) {
      await navigate(session, link);
      expect(await marker.isVisible()).toBe(true);
    }
    const { page } = session;

    // Canned answers, chosen by the address.
    const single = page.getByRole('region', { name: 'One address' });
    await single.getByLabel('E-mail address').fill('catchall@example.com');
    await single.getByRole('button', { name: 'Verify' }).click();
    const card = single.getByRole('article', { name: 'catchall@example.com' });
    await card.waitFor();
    const said = await card.innerText();
    expect(said).toContain('Catch-all');
    expect(said).toContain('The domain accepts mail for any address');
    expect(said).toContain('mx.sandbox.invalid');

    // A whole list, through the same pipeline, charged nothing.
    await navigate(session, 'Files');
    expect(await marker.isVisible()).toBe(true);
    await page.getByLabel('Or choose a file of addresses').setInputFiles({
      name: 'sandbox.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(
        'valid@example.com\ninvalid@example.com\nrole@example.com\ndisposable@example.com\n',
      ),
    });
    await page.getByRole('button', { name: 'Upload and verify' }).click();
    await page.getByRole('link', { name: 'Follow the verification of sandbox.txt' }).click();
    await page.getByRole('heading', { level: 1, name: 'sandbox.txt' }).waitFor();
    await page
      .getByRole('img', {
        name: 'Bar chart of the verdicts: Valid 1, Invalid 1, Unknown 0, Catch-all 0, Role account 1, Disposable 1, Risky 0.',
      })
      .waitFor();
    expect(await marker.isVisible()).toBe(true);
    await audit(session, 'job-sandbox');
    expect(await balance()).toBe(before);
    session.expectSameOrigin();
  });
});
