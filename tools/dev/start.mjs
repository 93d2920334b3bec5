// `npm start`: installs what is missing, finds or starts PostgreSQL and NATS, builds, starts every app, and
// prints the base URL, the docs URL and a demo API key with credits. Ctrl-C stops everything it started. Runs on
// Node.js 24, fetched from the npm registry when the machine's own is older (lib.mjs ensureNode).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GATEWAY, NODE_FLAGS, SERVICES } from './apps.mjs';
import {
  build,
  dataDir,
  ensureDependencies,
  ensureInfrastructure,
  ensureNode,
  fail,
  log,
  root,
  stopStarted,
} from './lib.mjs';

await ensureNode();
ensureDependencies();
const infra = await ensureInfrastructure({ redis: false });
build();

/**
 * A secret of this installation, made once and kept in .data/ readable by its owner only, so restarts (and the
 * data it protects) keep working; an explicit environment variable wins.
 */
function installationSecret(name) {
  if (process.env[name]) return process.env[name];
  const file = path.join(dataDir, `${name.toLowerCase().replaceAll('_', '-')}.txt`);
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

const port = Number(process.env.PORT || GATEWAY.port);
const baseUrl = process.env.PUBLIC_BASE_URL || `http://localhost:${port}`;
const env = {
  ...process.env,
  ...infra,
  PORT: String(port),
  PUBLIC_BASE_URL: baseUrl,
  NODE_ENV: process.env.NODE_ENV || 'development',
  WEBHOOK_SECRET_KEY: installationSecret('WEBHOOK_SECRET_KEY'),
  DOWNLOAD_SIGNING_SECRET: installationSecret('DOWNLOAD_SIGNING_SECRET'),
};
const logsDir = path.join(dataDir, 'logs');
mkdirSync(logsDir, { recursive: true });

const children = [];
let stopping = false;

function launch(app, extraEnv) {
  const out = createWriteStream(path.join(logsDir, `${app.name}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [...NODE_FLAGS, app.entry], {
    cwd: root,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  child.stderr.on('data', (chunk) => process.stderr.write(`[${app.name}] ${chunk}`));
  child.on('exit', (code, signal) => {
    if (!stopping)
      fail(
        `${app.name} stopped unexpectedly (${signal ?? `exit ${code}`}); see ${path.join(logsDir, `${app.name}.log`)}`,
      );
  });
  children.push(child);
}

async function waitReady(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
      last = await res.text();
    } catch (err) {
      last = err.message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  fail(`the suite did not become ready at ${url}: ${last}`);
}

async function shutdown() {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', resolve);
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
        }),
    ),
  );
  stopStarted();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

for (const app of SERVICES) launch(app, { HTTP_PORT: String(port + app.portOffset) });
launch(GATEWAY, {});
await waitReady(`http://127.0.0.1:${port}/health/ready`);

/** The demo key is kept in .data so restarts reuse it; a new one is made when it no longer works. */
async function demoKey() {
  const file = path.join(dataDir, 'demo-key.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    const res = await fetch(`http://127.0.0.1:${port}/v1/credits`, {
      headers: { 'SVC-API-KEY': saved.api_key },
    });
    if (res.ok) return saved;
  }
  const made = spawnSync(
    process.execPath,
    ['dist/tools/admin/main.js', 'create-account', '--name', 'demo', '--credits', '1000'],
    {
      cwd: root,
      env,
      encoding: 'utf8',
    },
  );
  if (made.status !== 0) fail(`could not create the demo account: ${made.stderr}`);
  const created = JSON.parse(made.stdout);
  // The key is a credential: readable by its owner only, like the installation's secrets.
  writeFileSync(file, JSON.stringify(created, null, 2), { mode: 0o600 });
  return created;
}

const demo = await demoKey();
process.stdout.write(`
  E-mail verification service is running.

  Base URL:   ${baseUrl}/v1
  Docs:       ${baseUrl}/docs   (OpenAPI: ${baseUrl}/openapi.json)
  Demo key:   ${demo.api_key}   (account ${demo.account_id}, 1000 credits when created)

  Try:        curl -H "SVC-API-KEY: ${demo.api_key}" ${baseUrl}/v1/credits
  Logs:       ${logsDir}   Admin: npm run admin -- create-account --name acme --credits 5000
  Stop:       Ctrl-C
`);
