import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createEmailVerifyClient,
  createLegacyEmailVerifyClient,
  type EmailVerifyClient,
  type LegacyEmailVerifyClient,
  type LegacySchemas,
  uploadFile,
  uploadForm,
  waitForJob,
} from '@emailverify/client';
import {
  freePort,
  MailWorld,
  repoRoot,
  type RunningProcess,
  stopProcess,
  TestSuite,
  waitUntilReady,
} from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Style = 'current' | 'legacy';

/**
 * What a validating proxy said about one exchange: Prism's `--errors` turns a request or reply that breaks the
 * document into a problem+json reply, and names lesser violations in an sl-violations header.
 */
interface Violation {
  request: string;
  status: number;
  said: string;
}

/** Stoplight Prism's validating proxy. */
const PRISM = path.join(repoRoot, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

const LEADS = 'email\njane@files.test\nbob@files.test\nghost@files.test\n';

/** The reply's data, or the test fails with the error reply (the narrowing a strict integration needs). */
function ok<T>(reply: { data?: T; error?: unknown; response: Response }): T {
  if (reply.data === undefined) {
    throw new Error(`${reply.response.status} ${reply.response.url}: ${JSON.stringify(reply.error)}`);
  }
  return reply.data;
}

describe('the typed client, through a validating proxy', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let dir: string;
  const proxies: RunningProcess[] = [];
  const violations: Violation[] = [];
  const proxyUrl = {} as Record<Style, string>;
  let current: EmailVerifyClient;
  let legacy: LegacyEmailVerifyClient;

  /** Prism in front of the gateway, checking every exchange against the document the gateway serves. */
  async function startProxy(style: Style): Promise<string> {
    const served = `${suite.gatewayUrl()}/${style === 'current' ? 'openapi' : 'openapi-legacy'}.json`;
    const document = path.join(dir, `${style}.json`);
    writeFileSync(document, await (await fetch(served)).text());
    const port = await freePort();
    const args = ['proxy', '--errors', '-h', '127.0.0.1', '-p', String(port), document, suite.gatewayUrl()];
    const child = spawn(process.execPath, [PRISM, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const proxy: RunningProcess = { name: `prism-${style}`, child, output, exited };
    proxies.push(proxy);
    const url = `http://127.0.0.1:${port}`;
    await waitUntilReady(proxy, `${url}/health/live`);
    return url;
  }

  /** A fetch that records what the proxy said about each exchange. */
  const recording = async (request: Request): Promise<Response> => {
    const label = `${request.method} ${new URL(request.url).pathname}`;
    const response = await fetch(request);
    const header = response.headers.get('sl-violations');
    if (header) violations.push({ request: label, status: response.status, said: header });
    if ((response.headers.get('content-type') ?? '').includes('problem+json')) {
      violations.push({ request: label, status: response.status, said: await response.clone().text() });
    }
    return response;
  };

  beforeAll(async () => {
    world = await MailWorld.start();
    world.domain('files.test', {
      mx: [{ priority: 10, host: 'mx.files.test', smtp: { mailboxes: ['jane', 'bob'] } }],
    });
    suite = await TestSuite.start({ world, env: { FILE_CHUNK_SIZE: '2' } });
    dir = mkdtempSync(path.join(tmpdir(), 'client-tour-'));
    for (const style of ['current', 'legacy'] as const) proxyUrl[style] = await startProxy(style);
    const currentKey = (await suite.createAccount({ credits: 1000 })).apiKey;
    const legacyKey = (await suite.createAccount({ credits: 1000, style: 'legacy' })).apiKey;
    current = createEmailVerifyClient({ apiKey: currentKey, baseUrl: proxyUrl.current, fetch: recording });
    legacy = createLegacyEmailVerifyClient({ apiKey: legacyKey, baseUrl: proxyUrl.legacy, fetch: recording });
  });

  afterAll(async () => {
    for (const proxy of proxies) await stopProcess(proxy);
    await suite?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('tours the API in the current style with types generated from /openapi.json', async () => {
    const credits = ok(await current.GET('/v1/credits'));
    expect(credits.data.credits_balance).toBe(1000);

    const single = ok(
      await current.POST('/v1/verify/single', { body: { email: 'jane@files.test', check_smtp: true } }),
    );
    expect([single.data.email, single.data.status]).toEqual(['jane@files.test', 'valid']);

    const bulk = ok(
      await current.POST('/v1/verify/bulk', {
        body: { emails: ['bob@files.test', 'ghost@files.test'], check_smtp: true },
      }),
    );
    expect(bulk.data.results.map((r) => r.status)).toEqual(['valid', 'invalid']);

    const disposable = ok(
      await current.POST('/v1/verify/disposable', { body: { email: 'someone@mailinator.com' } }),
    );
    expect(disposable.data.is_disposable).toBe(true);
    const byQuery = ok(
      await current.GET('/v1/verify/disposable', { params: { query: { email: 'someone@files.test' } } }),
    );
    expect(byQuery.data.is_disposable).toBe(false);

    const domain = ok(
      await current.GET('/v1/verify/domain', { params: { query: { domain: 'files.test' } } }),
    );
    expect([domain.data.accepts_mail, domain.data.mx_records]).toEqual([true, ['mx.files.test']]);

    const job = ok(await uploadFile(current, { fileName: 'leads.csv', content: LEADS, check_smtp: true }));
    expect(job.data.unique_emails).toBe(3);
    const ended = await waitForJob(current, job.data.task_id, { waitSeconds: 30 });
    expect([ended.status, ended.valid_emails, ended.invalid_emails]).toEqual(['completed', 2, 1]);

    const params = { path: { jobId: job.data.task_id }, query: { invalid: true } };
    const invalidOnly = await current.GET('/v1/verify/file/{jobId}/results', { params, parseAs: 'text' });
    expect(ok(invalidOnly)).toContain('ghost@files.test');
    expect(ok(invalidOnly)).not.toContain('jane@files.test');

    const deleted = ok(
      await current.DELETE('/v1/verify/file/{jobId}', { params: { path: { jobId: job.data.task_id } } }),
    );
    expect(deleted.data.job_id).toBe(job.data.task_id);
    const gone = await current.GET('/v1/verify/file/{jobId}', {
      params: { path: { jobId: job.data.task_id } },
    });
    expect([gone.response.status, gone.error?.error.code]).toEqual([404, 'JOB_NOT_FOUND']);

    const created = ok(
      await current.POST('/v1/webhooks', {
        body: { url: 'https://hooks.example.com/emailverify', events: ['file.completed'] },
      }),
    );
    expect(created.data.secret).toMatch(/^whsec_/);
    const webhookId = created.data.id;
    const listed = ok(await current.GET('/v1/webhooks'));
    expect(listed.data.webhooks.map((w) => w.id)).toEqual([webhookId]);
    const hook = { webhookId };
    const updated = ok(
      await current.PATCH('/v1/webhooks/{webhookId}', {
        params: { path: hook },
        body: { events: ['file.completed', 'file.failed'] },
      }),
    );
    expect(updated.data.events).toEqual(['file.completed', 'file.failed']);
    const log = ok(await current.GET('/v1/webhooks/{webhookId}/deliveries', { params: { path: hook } }));
    expect([log.data.deliveries, log.data.next_cursor]).toEqual([[], null]);
    ok(await current.DELETE('/v1/webhooks/{webhookId}', { params: { path: hook } }));
    expect(ok(await current.GET('/v1/webhooks')).data.total).toBe(0);

    expect(violations).toEqual([]);
  });

  it('tours the API with a legacy key, typed by /openapi-legacy.json', async () => {
    expect(ok(await legacy.GET('/v1/credits')).available).toBe(1000);

    const single = ok(
      await legacy.POST('/v1/verify/single', { body: { email: 'jane@files.test', check_smtp: true } }),
    );
    expect([single.status, single.result.smtp_valid]).toEqual(['valid', true]);

    const bulk = ok(
      await legacy.POST('/v1/verify/bulk', {
        body: { emails: ['bob@files.test', 'ghost@files.test'], check_smtp: true },
      }),
    );
    expect(bulk.results.map((r) => [r.email, r.is_deliverable])).toEqual([
      ['bob@files.test', true],
      ['ghost@files.test', false],
    ]);

    expect(
      ok(await legacy.POST('/v1/verify/disposable', { body: { email: 'someone@mailinator.com' } }))
        .is_disposable,
    ).toBe(true);
    expect(
      ok(await legacy.GET('/v1/verify/domain', { params: { query: { domain: 'files.test' } } })).reason,
    ).toBe('mx_found');

    const job = ok(
      await legacy.POST(
        '/v1/verify/file',
        uploadForm({ fileName: 'leads.csv', content: LEADS, check_smtp: true }),
      ),
    );
    expect(job.total_emails).toBe(3);
    let status: LegacySchemas['FileJobStatus'];
    do {
      status = ok(
        await legacy.GET('/v1/verify/file/{jobId}', {
          params: { path: { jobId: job.job_id }, query: { timeout: 30 } },
        }),
      );
    } while (status.status !== 'completed' && status.status !== 'failed');
    expect([status.status, status.valid_emails, status.progress_percent]).toEqual(['completed', 2, 100]);

    const validOnly = await legacy.GET('/v1/verify/file/{jobId}/results', {
      params: { path: { jobId: job.job_id }, query: { valid: true } },
      parseAs: 'text',
    });
    expect(ok(validOnly)).toContain('jane@files.test');
    expect(ok(validOnly)).not.toContain('ghost@files.test');
    ok(await legacy.DELETE('/v1/verify/file/{jobId}', { params: { path: { jobId: job.job_id } } }));

    const created = ok(
      await legacy.POST('/v1/webhooks', {
        body: { url: 'https://hooks.example.com/legacy', events: ['file.failed'] },
      }),
    );
    const hook = { webhookId: created.id };
    expect(ok(await legacy.GET('/v1/webhooks')).webhooks.map((w) => w.url)).toEqual([
      'https://hooks.example.com/legacy',
    ]);
    expect(
      ok(
        await legacy.PATCH('/v1/webhooks/{webhookId}', {
          params: { path: hook },
          body: { is_active: false },
        }),
      ).is_active,
    ).toBe(false);
    const missing = await legacy.DELETE('/v1/webhooks/{webhookId}', {
      params: { path: { webhookId: '00000000-0000-4000-8000-000000000000' } },
    });
    expect([missing.response.status, missing.error?.error.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
    ok(await legacy.DELETE('/v1/webhooks/{webhookId}', { params: { path: hook } }));

    expect(violations).toEqual([]);
  });

  it('has a proxy that refuses a request breaking the document (so the tours above can fail)', async () => {
    const reply = await fetch(`${proxyUrl.current}/v1/verify/single`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': 'ev_unused', 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 5 }),
    });
    expect(reply.headers.get('content-type')).toContain('problem+json');
    expect(await reply.text()).toContain('email');
  });
});
