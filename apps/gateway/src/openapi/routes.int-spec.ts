import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../bootstrap';
import { loadGatewayConfig } from '../config';
import { readFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { buildOpenApiDocument, DOCUMENT_SERVER } from './document';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

describe('OpenAPI coverage', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const config = loadGatewayConfig({
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
      if (path.startsWith('/docs') || path === '/openapi.json') continue;
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

  it('matches the committed docs/openapi.json (run `npm run openapi` after changing the API)', async () => {
    // Serialised and formatted exactly as `npm run openapi` writes it.
    const options = { ...(await resolveConfig('docs/openapi.json')), parser: 'json' };
    const text = `${JSON.stringify(buildOpenApiDocument(app, DOCUMENT_SERVER), null, 2)}\n`;
    expect(readFileSync('docs/openapi.json', 'utf8')).toBe(await format(text, options));
  });
});
