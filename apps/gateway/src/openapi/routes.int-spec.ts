import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../bootstrap';
import { gatewayConfig } from '../config';
import { readFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { buildOpenApiDocument, buildOpenApiDocuments, DOCUMENT_SERVER, DOCUMENTS } from './document';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

describe('OpenAPI coverage', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const config = gatewayConfig.load({
      DOWNLOAD_SIGNING_SECRET: 'routes-spec-download-secret',
      ...process.env,
      NATS_NAMESPACE: `t_routes_${process.pid}`,
      LOG_LEVEL: 'silent',
    });
    app = await createGatewayApp(config);
    await app.init();
  });
  afterAll(async () => app?.close());

  it('documents every route the gateway registers, and nothing it does not', () => {
    const router = (app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } }).router;
    const served = new Set<string>();
    for (const layer of router.stack) {
      if (!layer.route) continue;
      const path = layer.route.path.replace(/:(\w+)/g, '{$1}');
      // Swagger UI's own assets and the JSON document are not API routes.
      if (path.startsWith('/docs') || path === DOCUMENTS.current.url || path === DOCUMENTS.legacy.url)
        continue;
      // Nest adds a catch-all layer for each path excluded from the /v1 prefix; it serves no method of its own.
      if (Object.keys(layer.route.methods).length > 20) continue;
      for (const method of Object.keys(layer.route.methods)) served.add(`${method.toUpperCase()} ${path}`);
    }
    const doc = buildOpenApiDocument(app, 'http://localhost');
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    expect(served.size).toBeGreaterThan(0);
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it('documents the Idempotency-Key on every POST and DELETE of the API, and on no other method', () => {
    const doc = buildOpenApiDocument(app, 'http://localhost');
    const keyed: string[] = [];
    const unkeyed: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(
        item as Record<string, { parameters?: { name: string }[] }>,
      )) {
        const takesKey = (op.parameters ?? []).some((p) => p.name === 'Idempotency-Key');
        (takesKey ? keyed : unkeyed).push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(keyed.filter((route) => !/^(POST|DELETE) /.test(route))).toEqual([]);
    expect(unkeyed.filter((route) => /^(POST|DELETE) /.test(route))).toEqual([]);
    expect(keyed).toContain('DELETE /v1/keys/{keyId}');
  });

  it('leaves the web console (/console, static files) out of both documents', () => {
    for (const doc of Object.values(buildOpenApiDocuments(app, DOCUMENT_SERVER))) {
      expect(Object.keys(doc.paths).filter((path) => /^\/console\b/.test(path))).toEqual([]);
    }
  });

  it.each(['current', 'legacy'] as const)(
    'matches the committed %s-style document (run `npm run openapi` after changing the API)',
    async (style) => {
      // Serialised and formatted exactly as `npm run openapi` writes it.
      const file = DOCUMENTS[style].file;
      const options = { ...(await resolveConfig(file)), parser: 'json' };
      const text = `${JSON.stringify(buildOpenApiDocuments(app, DOCUMENT_SERVER)[style], null, 2)}\n`;
      expect(readFileSync(file, 'utf8')).toBe(await format(text, options));
    },
  );

  it('documents the same operations in both styles, each reply in its own style only', () => {
    const { current, legacy } = buildOpenApiDocuments(app, DOCUMENT_SERVER);
    const operations = (doc: typeof current) =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item as Record<string, { operationId: string }>).map(
          ([method, op]) => `${method} ${path} ${op.operationId}`,
        ),
      );
    expect(operations(legacy)).toEqual(operations(current));
    // Not enough credits is 402 in the current style and 403 in the legacy one: never both in one document.
    const single = (doc: typeof current) => Object.keys(doc.paths['/v1/verify/single']!.post!.responses);
    expect(single(current)).toContain('402');
    expect(single(current)).not.toContain('403');
    expect(single(legacy)).toContain('403');
    expect(single(legacy)).not.toContain('402');
    // The current style's reply is the envelope around the named payload; the legacy one the payload itself.
    const schema = (doc: typeof current) => JSON.stringify(doc.paths['/v1/credits']!.get!.responses['200']);
    expect(schema(current)).toContain('#/components/schemas/CreditAccountReply');
    expect(schema(legacy)).toContain('#/components/schemas/CreditAccount"');
    expect(JSON.stringify(current)).not.toContain('oneOf');
    expect(JSON.stringify(legacy)).not.toContain('oneOf');
  });
});
