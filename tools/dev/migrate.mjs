// `npm run migrate`: creates the database named in DATABASE_URL when it is missing and runs every service's
// migrations on it (each service owns one schema; the services also do this when they start). It compiles into
// a private directory, so it can run beside `npm start` or `npm test` without touching their dist/.
import { createRequire } from 'node:module';
import path from 'node:path';
import { build, dataDir, ensureDependencies, ensureInfrastructure, ensureNode, fail, log } from './lib.mjs';

await ensureNode();
await ensureDependencies();
const { DATABASE_URL } = await ensureInfrastructure({ redis: false, nats: false });
const out = path.join(dataDir, 'migrate', 'dist');
// Only the migrations and the persistence lib are loaded from it.
await build(out, { compileOnly: true });

const require = createRequire(import.meta.url);
const { openSchemaDataSource } = require(path.join(out, 'libs/persistence/src/index.js'));
const SCHEMAS = [
  { service: 'credits', schema: 'credits', exported: 'creditsMigrations' },
  { service: 'verifier', schema: 'verifier', exported: 'verifierMigrations' },
  { service: 'file-jobs', schema: 'files', exported: 'filesMigrations' },
  { service: 'webhooks', schema: 'webhooks', exported: 'webhooksMigrations' },
];
const url = new URL(DATABASE_URL);
log(`migrating ${url.host}${url.pathname}`);
for (const { service, schema, exported } of SCHEMAS) {
  const migrations = require(path.join(out, 'apps', service, 'src/migrations/index.js'))[exported];
  if (!migrations) fail(`apps/${service}/src/migrations exports no ${exported}`);
  const db = await openSchemaDataSource({
    url: DATABASE_URL,
    schema,
    migrations,
    applicationName: 'migrate',
  });
  const applied = await db.query(`SELECT name FROM "${schema}".migrations ORDER BY id`);
  log(`${schema}: ${applied.length} migration(s) applied (${applied.map((m) => m.name).join(', ')})`);
  await db.destroy();
}
process.exit(0);
