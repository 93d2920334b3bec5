import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createGatewayApp } from '../bootstrap';
import { gatewayConfig } from '../config';
import { buildOpenApiDocuments, DOCUMENT_SERVER, DOCUMENTS } from './document';

/**
 * Writes docs/openapi.json (current style) and docs/openapi-legacy.json from the code (`npm run openapi`); a
 * test fails when the code and the committed files disagree.
 */
async function main(): Promise<void> {
  const app = await createGatewayApp(
    gatewayConfig.load({
      // The documents sign nothing, but the gateway's config needs a link secret to load.
      DOWNLOAD_SIGNING_SECRET: randomBytes(32).toString('hex'),
      ...process.env,
      NATS_NAMESPACE: `openapi_${process.pid}`,
      LOG_LEVEL: 'silent',
    }),
  );
  await app.init();
  const documents = buildOpenApiDocuments(app, DOCUMENT_SERVER);
  for (const style of ['current', 'legacy'] as const) {
    writeFileSync(DOCUMENTS[style].file, `${JSON.stringify(documents[style], null, 2)}\n`);
  }
  await app.close();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
