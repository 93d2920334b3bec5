import { Subjects } from '@emailverify/contracts';
import { signDownload } from '@emailverify/service-kit';
import { type Account, eventually, type HttpReply, MailWorld, TestSuite } from '@emailverify/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, SetMatchType } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is read field by field
type Doc = any;
type Style = 'current' | 'legacy';

const STYLES: Style[] = ['current', 'legacy'];
const SECRET = 'openapi-spec-download-secret';
const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';
/** Larger than JSON_BODY_LIMIT_BYTES (1 MiB by default). */
const OVERSIZED_JSON = JSON.stringify({ email: 'x'.repeat(1_100_000) });
const FILE_MAX_BYTES = 4096;
/** Routes whose only 400 is a malformed SVC-Response-Style, which is answered in the current style. */
const NO_LEGACY_400 = [
  'get /v1/credits',
  'get /v1/webhooks',
  'delete /v1/webhooks/{webhookId}',
  'delete /v1/verify/file/{jobId}',
  'get /v1/keys',
  'delete /v1/keys/{keyId}',
];

/**
 * Every object schema of the document closed to undocumented properties, so a reply with a field the document
 * does not name fails here (the published document leaves data objects open for additions).
 */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeObjects);
  if (node === null || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined)
    schema.additionalProperties = false;
  Object.values(schema).forEach(closeObjects);
}

describe('OpenAPI document and docs page', () => {
  let world: MailWorld;
  let suite: TestSuite;
  /** Each style's document (/openapi.json, /openapi-legacy.json), and a validator over each. */
  const docs = {} as Record<Style, Doc>;
  const apis = {} as Record<Style, OpenAPIBackend>;
  let account: Account;
  let broke: Account;
  /** A key of `account` with the `verify` scope: refused on /v1/keys and /v1/webhooks. */
  let verifyOnly: string;
  /** What each operation has been seen answering: `${status} ${style}`. */
  const seen = new Map<string, Set<string>>();

  beforeAll(async () => {
    world = await MailWorld.start();
    world.domain('files.test', {
      mx: [{ priority: 10, host: 'mx.files.test', smtp: { mailboxes: ['jane', 'bob'] } }],
    });
    world.domain('slow.test', {
      mx: [{ priority: 10, host: 'mx.slow.test', smtp: { catchAll: true, delayMs: 300 } }],
    });
    suite = await TestSuite.start({
      world,
      env: {
        DOWNLOAD_SIGNING_SECRET: SECRET,
        FILE_MAX_BYTES: String(FILE_MAX_BYTES),
        FILE_CHUNK_SIZE: '5',
        FILE_CHUNKS_IN_FLIGHT: '1',
        RATE_LIMIT_AUTH_FAILURES: '1000',
      },
    });
    // Gateway 1 allows one request per key and class (and per address for downloads) a minute: the second is 429.
    await suite.startGateway({
      ...Object.fromEntries(
        ['SINGLE', 'BULK', 'FILE', 'DISPOSABLE', 'OTHER', 'DOWNLOAD'].map((c) => [`RATE_LIMIT_${c}`, '1']),
      ),
    });
    // Gateway 2 waits one second for a verification.
    await suite.startGateway({ VERIFY_TIMEOUT_MS: '1000' });
    for (const style of STYLES) {
      const url = `${suite.gatewayUrl()}/${style === 'current' ? 'openapi' : 'openapi-legacy'}.json`;
      docs[style] = await (await fetch(url)).json();
      const strict = structuredClone(docs[style]);
      closeObjects(strict.paths);
      closeObjects(strict.components.schemas);
      // Formats too (date-time, uri): a timestamp that is not RFC 3339 fails.
      apis[style] = new OpenAPIBackend({
        definition: strict,
        quick: false,
        customizeAjv: (ajv) => addFormats(ajv),
      });
      await apis[style].init();
    }
    account = await suite.createAccount({ credits: 10_000 });
    broke = await suite.createAccount({ credits: 0 });
    verifyOnly = (
      await suite.bus.request(Subjects.creditsKeyCreate, { accountId: account.accountId, scope: 'verify' })
    ).apiKey;
  });
  afterAll(async () => suite?.stop());

  /**
   * Checks one real reply against its style's document: its status is documented for the operation, its JSON
   * body matches that status's schema, its headers have the documented types and the required ones are there.
   */
  function expectDocumented(method: string, template: string, style: Style, reply: HttpReply): void {
    const doc = docs[style];
    const api = apis[style];
    const where = `${method.toUpperCase()} ${template} ${reply.status} (${style}): ${reply.text.slice(0, 300)}`;
    const operation = doc.paths[template]?.[method];
    expect(operation, where).toBeDefined();
    const response = operation.responses[String(reply.status)];
    expect(response, `${where}: status not documented`).toBeDefined();
    const type = reply.headers.get('content-type') ?? '';
    const documentedTypes = Object.keys(response.content ?? {});
    if (documentedTypes.length > 0) {
      expect(
        documentedTypes.some((t) => type.startsWith(t)),
        `${where}: ${type}`,
      ).toBe(true);
    }
    if (type.startsWith('application/json')) {
      const result = api.validateResponse(reply.json, operation.operationId, reply.status);
      expect(result.errors ?? [], where).toEqual([]);
    }
    const headers = Object.fromEntries(reply.headers.entries());
    const headerResult = api.validateResponseHeaders(headers, operation.operationId, {
      statusCode: reply.status,
      setMatchType: SetMatchType.Any,
    });
    expect(headerResult.errors ?? [], where).toEqual([]);
    for (const [name, ref] of Object.entries(response.headers ?? {})) {
      const declared = doc.components.headers[(ref as { $ref: string }).$ref.split('/').pop()!];
      if (declared.required) expect(reply.headers.get(name), `${where}: header ${name}`).not.toBeNull();
    }
    const key = `${method} ${template}`;
    if (!seen.has(key)) seen.set(key, new Set());
    seen.get(key)!.add(`${reply.status} ${style}`);
  }

  /** One call in one style, checked against the document; returns the reply. */
  async function call(
    method: string,
    template: string,
    style: Style,
    options: {
      params?: Record<string, string>;
      query?: string;
      key?: string | null;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
      gateway?: number;
    } = {},
  ): Promise<HttpReply> {
    let path = template;
    for (const [name, value] of Object.entries(options.params ?? {})) path = path.replace(`{${name}}`, value);
    path = path.replace(/\{[^}]+\}/g, NO_SUCH_ID) + (options.query ? `?${options.query}` : '');
    const key = options.key === null ? undefined : (options.key ?? account.apiKey);
    const reply = await suite.call(path, {
      method: method.toUpperCase(),
      key,
      // A style header given by the caller (a malformed one) goes as it is.
      style: options.headers?.['SVC-Response-Style'] === undefined ? style : undefined,
      body: options.body,
      rawBody: options.rawBody,
      headers:
        options.rawBody !== undefined
          ? { 'Content-Type': 'application/json', ...options.headers }
          : options.headers,
      gateway: options.gateway,
    });
    expectDocumented(method, template, style, reply);
    return reply;
  }

  async function upload(
    style: Style,
    file: { name: string; content: string },
    options: { key?: string; fields?: Record<string, string>; gateway?: number } = {},
  ): Promise<HttpReply> {
    const reply = await suite.upload({ ...options, key: options.key ?? account.apiKey, file, style });
    expectDocumented('post', '/v1/verify/file', style, reply);
    return reply;
  }

  const addresses = (domain: string, n: number) =>
    `email\n${Array.from({ length: n }, (_, i) => `user${i}@${domain}`).join('\n')}\n`;

  /** Routes that only the credits service answers. */
  const onCredits = (template: string) =>
    template.startsWith('/v1/credits') || template.startsWith('/v1/keys');

  /** Authenticated operations: every documented one but health, metrics and the signed download. */
  const authenticated = (): Array<[string, string]> =>
    Object.entries(docs.current.paths).flatMap(([template, item]) =>
      Object.entries(item as Record<string, { security?: unknown[] }>)
        .filter(([, op]) => !Array.isArray(op.security) || op.security.length > 0)
        .map(([method]) => [method, template] as [string, string]),
    );

  it.each(STYLES)('serves a valid OpenAPI 3.0 document of the %s style', async (style) => {
    expect(docs[style].openapi).toMatch(/^3\.0\./);
    const result = await new Validator().validate(docs[style]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.each(STYLES)(
    'documents the three API-key carriers (%s style), the keyless routes as keyless',
    (style) => {
      const doc = docs[style];
      const schemes = doc.components.securitySchemes;
      expect(schemes.SvcApiKey).toEqual(
        expect.objectContaining({ type: 'apiKey', in: 'header', name: 'SVC-API-KEY' }),
      );
      expect(schemes.ServiceApiKey).toEqual(
        expect.objectContaining({ type: 'apiKey', in: 'header', name: 'SERVICE-API-KEY' }),
      );
      expect(schemes.BearerApiKey).toEqual({
        type: 'http',
        scheme: 'bearer',
        description: expect.any(String),
      });
      expect(doc.security).toEqual([{ SvcApiKey: [] }, { ServiceApiKey: [] }, { BearerApiKey: [] }]);
      for (const [path, method] of [
        ['/health/live', 'get'],
        ['/health/ready', 'get'],
        ['/metrics', 'get'],
        ['/v1/verify/file/{jobId}/download', 'get'],
      ]) {
        expect(doc.paths[path][method].security, path).toEqual([]);
      }
    },
  );

  // Generous limits: these make a few hundred requests on a machine that may be busy.
  it('answers every route in both styles as documented', { timeout: 300_000 }, async () => {
    for (const style of STYLES) {
      await call('post', '/v1/verify/single', style, { body: { email: 'jane@files.test' } });
      await call('post', '/v1/verify/bulk', style, { body: { emails: ['jane@files.test', 'x@files.test'] } });
      await call('post', '/v1/verify/disposable', style, { body: { email: 'someone@mailinator.com' } });
      await call('get', '/v1/verify/disposable', style, { query: 'email=someone%40mailinator.com' });
      await call('get', '/v1/verify/domain', style, { query: 'domain=files.test' });
      await call('get', '/v1/verify/domain', style, { query: 'domain=slow.test&check_smtp=true' });
      const credits = await call('get', '/v1/credits', style);
      expect(credits.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      await call('get', '/v1/webhooks', style);
      await call('get', '/v1/credits/ledger', style, { query: 'limit=2' });
      await call('get', '/v1/credits/usage', style, { query: 'granularity=day' });
      await call('get', '/v1/keys', style);
      const made = await call('post', '/v1/keys', style, {
        body: { name: `docs ${style}`, scope: 'verify' },
      });
      const keyId = (style === 'current' ? made.json.data.id : made.json.id) as string;
      await call('delete', '/v1/keys/{keyId}', style, { params: { keyId } });
    }
    const hooks: string[] = [];
    for (const style of STYLES) {
      const created = await call('post', '/v1/webhooks', style, {
        body: { url: 'https://hooks.example.com/emailverify', events: ['file.completed'] },
      });
      const id = style === 'current' ? created.json.data.id : created.json.id;
      hooks.push(id);
      await call('patch', '/v1/webhooks/{webhookId}', style, {
        params: { webhookId: id },
        body: { events: ['file.completed', 'file.failed'] },
      });
      await call('get', '/v1/webhooks/{webhookId}/deliveries', style, { params: { webhookId: id } });
      await call('post', '/v1/webhooks/{webhookId}/rotate-secret', style, { params: { webhookId: id } });
    }

    // A job that completes: its status, its results (307 or the CSV), its signed download, and a delivery.
    const job = await upload('current', { name: 'list.csv', content: addresses('files.test', 3) });
    expect(job.status).toBe(200);
    const jobId = job.json.data.task_id as string;
    await upload('legacy', { name: 'list.txt', content: 'bob@files.test\n' });
    const finished = await suite.finishedJob(jobId, account.apiKey);
    for (const style of STYLES) {
      await call('get', '/v1/verify/file', style, { query: 'limit=1' });
      await call('get', '/v1/verify/file/{jobId}', style, { params: { jobId } });
      const full = await call('get', '/v1/verify/file/{jobId}/results', style, { params: { jobId } });
      expect(full.status).toBe(style === 'current' ? 307 : 200);
      await call('get', '/v1/verify/file/{jobId}/results', style, { params: { jobId }, query: 'valid=true' });
      const link = new URL(finished.direct_download_url as string);
      await call('get', '/v1/verify/file/{jobId}/download', style, {
        params: { jobId },
        query: link.search.slice(1),
        key: null,
      });
    }
    const delivery = await eventually(
      async () => {
        const log = await suite.call(`/v1/webhooks/${hooks[0]}/deliveries`, { key: account.apiKey });
        expect(log.json.data.deliveries.length).toBeGreaterThan(0);
        return log.json.data.deliveries[0].id as string;
      },
      { timeoutMs: 30_000 },
    );
    for (const style of STYLES) {
      await call('post', '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', style, {
        params: { webhookId: hooks[0]!, deliveryId: delivery },
      });
    }

    // Slow jobs (a 300 ms SMTP server, one chunk of five at a time) stay in progress while they are paused,
    // resumed and cancelled.
    for (const style of STYLES) {
      const slow = await upload(
        style,
        { name: 'slow.csv', content: addresses('slow.test', 60) },
        {
          fields: { check_smtp: 'true' },
        },
      );
      const slowId = (style === 'current' ? slow.json.data.task_id : slow.json.job_id) as string;
      const params = { jobId: slowId };
      expect((await call('post', '/v1/verify/file/{jobId}/pause', style, { params })).status).toBe(200);
      const partial = await call('get', '/v1/verify/file/{jobId}/results', style, {
        params,
        query: 'partial=true',
      });
      expect(partial.status).toBe(200);
      expect((await call('post', '/v1/verify/file/{jobId}/resume', style, { params })).status).toBe(200);
      expect((await call('post', '/v1/verify/file/{jobId}/cancel', style, { params })).status).toBe(200);
      expect((await call('delete', '/v1/verify/file/{jobId}', style, { params })).status).toBe(200);
    }

    for (const [style, id] of STYLES.map((s, i) => [s, hooks[i]!] as const)) {
      await call('delete', '/v1/webhooks/{webhookId}', style, { params: { webhookId: id } });
    }
    for (const path of ['/health/live', '/health/ready', '/metrics']) {
      expect((await call('get', path, 'current', { key: null })).status).toBe(200);
    }
  });

  it('answers every documented error of every route as documented', { timeout: 300_000 }, async () => {
    const hook = await suite.call('/v1/webhooks', {
      key: account.apiKey,
      body: { url: 'https://hooks.example.com/errors', events: ['file.failed'] },
    });
    const hookId = hook.json.data.id as string;
    const expires = Math.floor(Date.now() / 1000) + 600;
    for (const style of STYLES) {
      for (const [method, template] of authenticated()) {
        expect((await call(method, template, style, { key: null })).status).toBe(401);
      }
      // Bad input, route by route.
      const bad: Array<[string, string, Parameters<typeof call>[3]]> = [
        ['post', '/v1/verify/single', { body: { email: 5 } }],
        ['post', '/v1/verify/bulk', { body: { emails: 'jane@files.test' } }],
        ['post', '/v1/verify/disposable', { body: { email: 'a@mailinator.com', check_smtp: true } }],
        ['get', '/v1/verify/disposable', { query: 'email=a%40mailinator.com&check_smtp=true' }],
        ['get', '/v1/verify/domain', { query: 'domain=jane%40files.test' }],
        ['get', '/v1/verify/file', { query: 'limit=0' }],
        ['get', '/v1/verify/file/{jobId}', { query: 'timeout=soon' }],
        ['get', '/v1/verify/file/{jobId}/results', { query: 'valid=maybe' }],
        ['get', '/v1/verify/file/{jobId}/download', { key: null, query: 'expires=soon' }],
        ['post', '/v1/verify/file/{jobId}/pause', { rawBody: '{not json' }],
        ['post', '/v1/verify/file/{jobId}/resume', { rawBody: '{not json' }],
        ['post', '/v1/verify/file/{jobId}/cancel', { rawBody: '{not json' }],
        [
          'post',
          '/v1/webhooks',
          { body: { url: 'http://hooks.example.com/plain', events: ['file.failed'] } },
        ],
        ['patch', '/v1/webhooks/{webhookId}', { params: { webhookId: hookId }, body: {} }],
        ['get', '/v1/webhooks/{webhookId}/deliveries', { params: { webhookId: hookId }, query: 'limit=0' }],
        ['post', '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', { rawBody: '{not json' }],
        ['get', '/v1/credits/ledger', { query: 'limit=0' }],
        ['get', '/v1/credits/usage', { query: 'granularity=hour' }],
        ['post', '/v1/keys', { body: { name: 'x', scope: 'root' } }],
        ['post', '/v1/webhooks/{webhookId}/rotate-secret', { rawBody: '{not json' }],
      ];
      for (const [method, template, options] of bad) {
        expect((await call(method, template, style, options)).status).toBe(400);
      }
      const noFile = await suite.upload({ key: account.apiKey, style, fields: { check_smtp: 'true' } });
      expectDocumented('post', '/v1/verify/file', style, noFile);
      expect(noFile.status).toBe(400);
      for (const [method, template, options] of [
        ['post', '/v1/verify/single', { body: { email: 'no-at-sign' } }],
        ['post', '/v1/verify/disposable', { body: { email: 'no-at-sign' } }],
        ['get', '/v1/verify/disposable', { query: 'email=no-at-sign' }],
      ] as const) {
        const reply = await call(method, template, style, options);
        expect([reply.status, reply.text]).toEqual([400, expect.stringContaining('INVALID_EMAIL')]);
      }
      // Not enough credits: 402 in the current style, 403 in the legacy one.
      const credits = style === 'current' ? 402 : 403;
      const key = broke.apiKey;
      expect(
        (await call('post', '/v1/verify/single', style, { key, body: { email: 'j@files.test' } })).status,
      ).toBe(credits);
      expect(
        (await call('post', '/v1/verify/bulk', style, { key, body: { emails: ['j@files.test'] } })).status,
      ).toBe(credits);
      expect(
        (await upload(style, { name: 'a.csv', content: addresses('files.test', 2) }, { key })).status,
      ).toBe(credits);
      expect(
        (await call('get', '/v1/verify/domain', style, { key, query: `domain=${style}.files.test` })).status,
      ).toBe(credits);
      // Not found.
      for (const template of [
        '/v1/verify/file/{jobId}',
        '/v1/verify/file/{jobId}/results',
        '/v1/webhooks/{webhookId}/deliveries',
      ]) {
        expect((await call('get', template, style)).status).toBe(404);
      }
      for (const action of ['pause', 'resume', 'cancel']) {
        expect((await call('post', `/v1/verify/file/{jobId}/${action}`, style)).status).toBe(404);
      }
      expect((await call('delete', '/v1/verify/file/{jobId}', style)).status).toBe(404);
      expect(
        (await call('patch', '/v1/webhooks/{webhookId}', style, { body: { is_active: true } })).status,
      ).toBe(404);
      expect((await call('delete', '/v1/webhooks/{webhookId}', style)).status).toBe(404);
      expect((await call('delete', '/v1/keys/{keyId}', style)).status).toBe(404);
      // A key never revokes itself; a key of the verify scope manages neither keys nor webhooks.
      const self = await call('delete', '/v1/keys/{keyId}', style, { params: { keyId: account.apiKeyId } });
      expect(self.status).toBe(409);
      for (const [method, template] of authenticated().filter(
        ([, t]) => t.startsWith('/v1/keys') || t.startsWith('/v1/webhooks'),
      )) {
        const body = method === 'post' || method === 'patch' ? {} : undefined;
        const refused = await call(method, template, style, { key: verifyOnly, body });
        expect(refused.status, `${method} ${template}`).toBe(403);
      }
      expect((await call('post', '/v1/webhooks/{webhookId}/rotate-secret', style)).status).toBe(404);
      const redeliver = '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver';
      expect((await call('post', redeliver, style)).status).toBe(404);
      const unknownDelivery = await call('post', redeliver, style, { params: { webhookId: hookId } });
      expect([unknownDelivery.status, unknownDelivery.text]).toEqual([
        404,
        expect.stringContaining('NOT_FOUND'),
      ]);
      const signedForNoJob = `expires=${expires}&signature=${signDownload(SECRET, NO_SUCH_ID, expires)}`;
      const download = '/v1/verify/file/{jobId}/download';
      expect((await call('get', download, style, { key: null, query: signedForNoJob })).status).toBe(404);
      const forged = `expires=${expires}&signature=${'0'.repeat(64)}`;
      expect((await call('get', download, style, { key: null, query: forged })).status).toBe(403);
      // Too large: a JSON body over the limit on every route that reads one, and an upload over FILE_MAX_BYTES.
      for (const [method, template] of authenticated().filter(([m]) => m === 'post' || m === 'patch')) {
        if (template === '/v1/verify/file') continue;
        expect((await call(method, template, style, { rawBody: OVERSIZED_JSON })).status).toBe(413);
      }
      const big = await upload(style, {
        name: 'big.txt',
        content: 'a@files.test\n'.repeat(FILE_MAX_BYTES / 8),
      });
      expect(big.status).toBe(413);
      // Rate limits (gateway 1 allows one request a minute per key and class, and per address for downloads).
      const limited = await suite.createAccount();
      for (const [method, template] of [...authenticated(), ['get', download] as [string, string]]) {
        const options = { key: template === download ? null : limited.apiKey, gateway: 1 };
        await suite.call(template.replace(/\{[^}]+\}/g, NO_SUCH_ID), {
          method: method.toUpperCase(),
          key: options.key ?? undefined,
          gateway: 1,
        });
        const reply = await call(method, template, style, options);
        expect([reply.status, reply.headers.get('retry-after')]).toEqual([
          429,
          expect.stringMatching(/^\d+$/),
        ]);
      }
    }
    // A malformed SVC-Response-Style: 400 in the current style, on every authenticated route.
    for (const [method, template] of authenticated()) {
      const reply = await call(method, template, 'current', { headers: { 'SVC-Response-Style': 'fancy' } });
      expect(reply.status).toBe(400);
    }
  });

  it('answers 504 and 503 as documented when services do not answer', { timeout: 300_000 }, async () => {
    // A verifier that stops answering: the verification's deadline (1 s on gateway 2) passes.
    const verifier = suite.processes.get('verifier')!.child;
    verifier.kill('SIGSTOP');
    try {
      for (const style of STYLES) {
        const single = await call('post', '/v1/verify/single', style, {
          gateway: 2,
          body: { email: 'jane@files.test', force_refresh: true },
        });
        expect(single.status).toBe(504);
        const bulk = await call('post', '/v1/verify/bulk', style, {
          gateway: 2,
          body: { emails: ['bob@files.test'] },
        });
        expect(bulk.status).toBe(504);
        const domain = await call('get', '/v1/verify/domain', style, {
          gateway: 2,
          query: 'domain=files.test',
        });
        expect(domain.status).toBe(504);
      }
    } finally {
      verifier.kill('SIGCONT');
    }
    const hook = await suite.call('/v1/webhooks', {
      key: account.apiKey,
      body: { url: 'https://hooks.example.com/down', events: ['file.failed'] },
    });
    const webhookId = hook.json.data.id as string;
    const expires = Math.floor(Date.now() / 1000) + 600;
    const signed = `expires=${expires}&signature=${signDownload(SECRET, NO_SUCH_ID, expires)}`;
    await suite.stopService('webhooks');
    await suite.stopService('file-jobs');
    await suite.stopService('verifier');
    for (const style of STYLES) {
      for (const [method, template] of authenticated()) {
        // The credits service still answers: its routes are asked below, once it is stopped too.
        if (onCredits(template) || template.startsWith('/v1/verify/disposable')) continue;
        if (template === '/v1/verify/file' && method === 'post') {
          expect((await upload(style, { name: 'a.csv', content: addresses('files.test', 1) })).status).toBe(
            503,
          );
          continue;
        }
        const body =
          template === '/v1/verify/single'
            ? { email: 'jane@files.test', force_refresh: true }
            : template === '/v1/verify/bulk'
              ? { emails: ['jane@files.test'] }
              : template === '/v1/webhooks' && method === 'post'
                ? { url: 'https://hooks.example.com/x', events: ['file.failed'] }
                : method === 'patch'
                  ? { is_active: false }
                  : undefined;
        const query = template === '/v1/verify/domain' ? 'domain=files.test' : undefined;
        const reply = await call(method, template, style, { params: { webhookId }, body, query });
        expect(reply.status, `${method} ${template}`).toBe(503);
      }
      expect(
        (await call('get', '/v1/verify/file/{jobId}/download', style, { key: null, query: signed })).status,
      ).toBe(503);
    }
    expect((await call('get', '/health/ready', 'current', { key: null })).status).toBe(503);
    await suite.stopService('credits');
    for (const style of STYLES)
      for (const [method, template] of authenticated().filter(([, t]) => onCredits(t))) {
        const body = method === 'post' ? { name: 'down' } : undefined;
        expect((await call(method, template, style, { body })).status, `${method} ${template}`).toBe(503);
      }
  });

  it('has seen every documented reply of every route, in the style of each document', () => {
    const missing: string[] = [];
    for (const style of STYLES) {
      for (const [template, item] of Object.entries(docs[style].paths)) {
        for (const [method, operation] of Object.entries(item as Record<string, Doc>)) {
          const key = `${method} ${template}`;
          const got = seen.get(key) ?? new Set<string>();
          for (const status of Object.keys(operation.responses as Record<string, Doc>)) {
            if (status === '400' && style === 'legacy' && NO_LEGACY_400.includes(key)) continue;
            // Health and metrics answer alike in both styles.
            const styles = template.startsWith('/v1/') ? [style] : STYLES;
            if (!styles.some((s) => got.has(`${status} ${s}`))) missing.push(`${key} ${status} ${style}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents webhook replies the same in both styles, the secret only on create and rotation', () => {
    for (const [path, methods] of Object.entries(docs.current.paths as Record<string, Doc>)) {
      if (!path.startsWith('/v1/webhooks')) continue;
      for (const [method, operation] of Object.entries(methods as Record<string, Doc>)) {
        const current = operation.responses['200'].content['application/json'].example;
        const legacy = docs.legacy.paths[path][method].responses['200'].content['application/json'].example;
        expect(current).toMatchObject({ success: true, code: '0', data: expect.any(Object) });
        expect(legacy).toEqual(current.data);
        const givesSecret =
          method === 'post' && (path === '/v1/webhooks' || path === '/v1/webhooks/{webhookId}/rotate-secret');
        expect(JSON.stringify(current).includes('"secret"'), `${method} ${path}`).toBe(givesSecret);
      }
    }
  });

  it('serves the interactive documentation at /docs without a key', async () => {
    const res = await fetch(`${suite.gatewayUrl()}/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('swagger-ui');
    // The page offers both documents (swagger-ui's selector over its `urls`), the current style first.
    const init = await (await fetch(`${suite.gatewayUrl()}/docs/swagger-ui-init.js`)).text();
    const urls = /"customOptions":\s*\{\s*"urls":\s*(\[[^\]]*\])/.exec(init)?.[1];
    expect((JSON.parse(urls ?? '[]') as Array<{ url: string }>).map((u) => u.url)).toEqual([
      '/openapi.json',
      '/openapi-legacy.json',
    ]);
  });
});
