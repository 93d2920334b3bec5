import { TestSuite } from '@emailverify/testing';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('OpenAPI document and docs page', () => {
  let suite: TestSuite;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is read field by field
  let doc: any;

  beforeAll(async () => {
    suite = await TestSuite.start();
    doc = await (await fetch(`${suite.gatewayUrl()}/openapi.json`)).json();
  });
  afterAll(async () => suite?.stop());

  it('is a valid OpenAPI 3.0 document', async () => {
    expect(doc.openapi).toMatch(/^3\.0\./);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents the three API-key carriers as alternatives', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.SvcApiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'SVC-API-KEY' }),
    );
    expect(schemes.ServiceApiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'SERVICE-API-KEY' }),
    );
    expect(schemes.BearerApiKey).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.security).toEqual([{ SvcApiKey: [] }, { ServiceApiKey: [] }, { BearerApiKey: [] }]);
  });

  it('documents every route the gateway serves', async () => {
    // Every documented path answers something other than "no such endpoint", and the known API routes are all there.
    const documented = Object.keys(doc.paths);
    expect(documented).toEqual(
      expect.arrayContaining([
        '/v1/credits',
        '/v1/webhooks',
        '/v1/webhooks/{webhookId}',
        '/v1/webhooks/{webhookId}/deliveries',
        '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
        '/health/live',
        '/health/ready',
        '/metrics',
      ]),
    );
    const account = await suite.createAccount();
    for (const p of documented) {
      for (const method of Object.keys(doc.paths[p])) {
        const concrete = p.replace(/\{[^}]+\}/g, '00000000-0000-0000-0000-000000000000');
        const res = await suite.call(concrete, { method: method.toUpperCase(), key: account.apiKey });
        expect(res.json?.error?.message ?? '', `${method} ${p}`).not.toMatch(/^No such endpoint/);
      }
    }
  });

  it('documents both response styles of /v1/credits', () => {
    const examples = doc.paths['/v1/credits'].get.responses['200'].content['application/json'].examples;
    expect(examples.current.value).toMatchObject({
      success: true,
      code: '0',
      data: { credits_balance: expect.any(Number) },
    });
    expect(examples.legacy.value).toMatchObject({
      available: expect.any(Number),
      rate_limit: expect.any(Object),
    });
  });

  it('documents every webhook route in both styles (the same payload), the secret only on create', () => {
    const operations: Array<[string, string]> = [
      ['/v1/webhooks', 'post'],
      ['/v1/webhooks', 'get'],
      ['/v1/webhooks/{webhookId}', 'patch'],
      ['/v1/webhooks/{webhookId}', 'delete'],
      ['/v1/webhooks/{webhookId}/deliveries', 'get'],
      ['/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', 'post'],
    ];
    for (const [path, method] of operations) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      const examples = operation.responses['200'].content['application/json'].examples;
      expect(examples.current.value).toMatchObject({ success: true, code: '0', data: expect.any(Object) });
      expect(examples.legacy.value).toEqual(examples.current.value.data);
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '429', '503']));
      if (path !== '/v1/webhooks') expect(Object.keys(operation.responses)).toContain('404');
      const createsWebhook = path === '/v1/webhooks' && method === 'post';
      expect(JSON.stringify(examples).includes('"secret"'), `${method} ${path}`).toBe(createsWebhook);
    }
  });

  it('serves the interactive documentation at /docs without a key', async () => {
    const res = await fetch(`${suite.gatewayUrl()}/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('swagger-ui');
  });
});
