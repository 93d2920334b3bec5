import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createGatewayApp } from '../bootstrap';
import { loadGatewayConfig } from '../config';
import { buildOpenApiDocument, DOCUMENT_SERVER } from './document';

/** Writes docs/openapi.json from the code (`npm run openapi`); a test fails when the two disagree. */
async function main(): Promise<void> {
  const app = await createGatewayApp(
    loadGatewayConfig({
      // The document signs nothing, but the gateway's config needs a link secret to load.
      DOWNLOAD_SIGNING_SECRET: randomBytes(32).toString('hex'),
      ...process.env,
      NATS_NAMESPACE: `openapi_${process.pid}`,
      LOG_LEVEL: 'silent',
    }),
  );
  await app.init();
  const doc = buildOpenApiDocument(app, DOCUMENT_SERVER);
  writeFileSync(process.argv[2] ?? 'docs/openapi.json', `${JSON.stringify(doc, null, 2)}\n`);
  await app.close();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
