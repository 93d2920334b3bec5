// `npm start`: installs what is missing, finds or starts PostgreSQL and NATS, builds, starts every app, and
// prints the base URL, the docs URL, the web console's URL and a demo API key with credits. Runs on Node.js 24,
// fetched from the npm registry when the machine's own is older (lib.mjs ensureNode).
//
// It supervises what it starts: a service that exits is started again after a pause that doubles with each
// quick failure, and the restart is printed; one that keeps failing stops everything with a message naming it
// and its log. Ctrl-C (SIGINT), SIGTERM or SIGHUP stops every service (each finishes what it holds), then the stores
// it started, and exits once all of them are gone. The apps run from a build apart from dist/ (.data/builds), so
// `npm test` or `npm run build` replacing dist/ meanwhile does not disturb them; a run whose sources have not
// changed since an earlier one uses that run's build instead of building again (lib.mjs privateBuild).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GATEWAY, NODE_FLAGS, SERVICES } from './apps.mjs';
import {
  dataDir,
  embeddedPostgresData,
  ensureDependencies,
  ensureInfrastructure,
  ensureNode,
  fail,
  log,
  portsInUse,
  privateBuild,
  removePrivateBuild,
  root,
  stopStartedAndWait,
} from './lib.mjs';

/** Restart pauses: 0.5 s, doubling per quick failure, at most 8 s. */
const FIRST_PAUSE_MS = 500;
const MAX_PAUSE_MS = 8_000;
/** A run shorter than this counts as a quick failure; this many in a row stop everything. */
const QUICK_RUN_MS = 30_000;
const MAX_QUICK_FAILURES = 5;

await ensureNode();

const port = Number(process.env.PORT || GATEWAY.port);
if (!Number.isInteger(port) || port < 1 || port > 65535 - 104)
  fail(`PORT must be a port number (1-${65535 - 104}), not "${process.env.PORT}"`);
const apps = [
  ...SERVICES.map((app) => ({ ...app, port: port + app.portOffset, host: '0.0.0.0', variable: 'HTTP_PORT' })),
  { ...GATEWAY, port, host: process.env.HOST || '0.0.0.0', variable: 'PORT' },
];

// Before anything is installed, built or started: every port the apps will listen on must be free.
const busy = await portsInUse(apps.map((app) => ({ port: app.port, host: app.host, what: app.name })));
if (busy.length > 0) {
  fail(
    `port${busy.length > 1 ? 's' : ''} already in use: ${busy.map((b) => `${b.port} (${b.what})`).join(', ')}. ` +
      `Stop what holds ${busy.length > 1 ? 'them' : 'it'}, or start on other ports with PORT=<port> npm start ` +
      `(the services take PORT+101 to PORT+104). Nothing was started.`,
  );
}

/** The apps under supervision, and this run's private build once made. */
const supervised = [];
let buildDir;
let stopping = false;

/** Stops every app, then the stores this run started, removes its build, and exits with `code`. */
async function stop(code, message) {
  if (stopping) return;
  stopping = true;
  if (message) process.stderr.write(`[emailverify] ${message}\n`);
  log('stopping…');
  await Promise.all(supervised.map((s) => s.stop()));
  await stopStartedAndWait();
  if (buildDir) removePrivateBuild(buildDir);
  log('stopped');
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
// A fault of this script itself must not leave the apps running unsupervised.
process.on('uncaughtException', (err) => void stop(1, `npm start failed: ${err?.stack ?? err}`));
process.on('unhandledRejection', (err) => void stop(1, `npm start failed: ${err?.stack ?? err}`));
// The terminal went away: stop as for Ctrl-C rather than leave the apps running unsupervised (what is
// printed meanwhile goes nowhere).
process.on('SIGHUP', () => {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  void stop(0);
});

await ensureDependencies();
const infra = await ensureInfrastructure({ redis: false });
buildDir = await privateBuild('start');

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

/** A built file of this run's private build, from its path under dist/. */
const built = (entry) => path.join(buildDir, path.relative('dist', entry));

/** One supervised app: its current process, and the quick failures in a row that decide the next pause. */
class Supervised {
  constructor(app) {
    this.app = app;
    this.logFile = path.join(logsDir, `${app.name}.log`);
    this.quickFailures = 0;
    this.child = undefined;
    this.timer = undefined;
  }

  start() {
    if (stopping) return;
    const out = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(process.execPath, [...(this.app.nodeFlags ?? NODE_FLAGS), built(this.app.entry)], {
      cwd: root,
      env: { ...env, ...(this.app.variable === 'HTTP_PORT' ? { HTTP_PORT: String(this.app.port) } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C reaches only npm start, which stops the apps before the stores they use.
      detached: true,
    });
    this.child = child;
    const began = Date.now();
    child.stdout.pipe(out);
    child.stderr.pipe(out);
    child.stderr.on('data', (chunk) => process.stderr.write(`[${this.app.name}] ${chunk}`));
    child.once('error', (err) => log(`${this.app.name} could not start: ${err.message}`));
    child.once('exit', (code, signal) => {
      // The log stream ends once the pipes are drained.
      if (stopping) return;
      this.exited(signal ?? `exit ${code}`, Date.now() - began);
    });
    log(`${this.app.name} started (pid ${child.pid})`);
  }

  exited(reason, ranMs) {
    this.quickFailures = ranMs < QUICK_RUN_MS ? this.quickFailures + 1 : 1;
    if (this.quickFailures >= MAX_QUICK_FAILURES) {
      void stop(
        1,
        `${this.app.name} keeps failing (${this.quickFailures} exits in a row within ${QUICK_RUN_MS / 1000} s of starting, last: ${reason}); stopping everything. See ${this.logFile}`,
      );
      return;
    }
    const pause = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (this.quickFailures - 1));
    log(
      `${this.app.name} stopped unexpectedly (${reason}); restarting it in ${pause / 1000} s (see ${this.logFile})`,
    );
    this.timer = setTimeout(() => this.start(), pause);
  }

  /** SIGTERM (the app drains and exits), SIGKILL after 20 s; resolves when the process is gone. */
  stop() {
    clearTimeout(this.timer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    });
  }
}

for (const app of apps) supervised.push(new Supervised(app));

async function waitReady(url, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (stopping) return;
    try {
      const res = await fetch(url);
      if (res.ok) return;
      last = await res.text();
    } catch (err) {
      last = err.message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop(1, `the suite did not become ready at ${url}: ${last} (logs in ${logsDir})`);
}

for (const s of supervised) s.start();
log(`waiting for every service to be ready (http://127.0.0.1:${port}/health/ready)…`);
await waitReady(`http://127.0.0.1:${port}/health/ready`);
// Stopping meanwhile (Ctrl-C, a service that keeps failing): stop() ends the process once everything is down.
if (stopping) await new Promise(() => {});

/** Runs the admin CLI and returns its JSON reply, or stops the suite with what it said. */
async function admin(what, ...args) {
  const made = spawnSync(process.execPath, [built('dist/tools/admin/main.js'), ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  if (made.status === 0) return JSON.parse(made.stdout);
  await stop(1, `could not create the ${what}: ${made.stderr}`);
  return undefined;
}

/**
 * The demo key, and a sandbox key of the same account, are kept in .data so restarts reuse them; new ones are
 * made when the demo key no longer works (a sandbox key is added to a demo account saved without one).
 */
async function demoKey() {
  const file = path.join(dataDir, 'demo-key.json');
  let demo;
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    const res = await fetch(`http://127.0.0.1:${port}/v1/credits`, {
      headers: { 'SVC-API-KEY': saved.api_key },
    }).catch(() => undefined);
    if (res?.ok) demo = saved;
  }
  demo ??= await admin('demo account', 'create-account', '--name', 'demo', '--credits', '1000');
  if (!demo) return undefined;
  if (!demo.sandbox_api_key) {
    const sandbox = await admin(
      'demo sandbox key',
      'create-key',
      '--account',
      demo.account_id,
      '--name',
      'demo-sandbox',
      '--sandbox',
    );
    if (!sandbox) return undefined;
    demo = { ...demo, sandbox_api_key: sandbox.api_key, sandbox_api_key_id: sandbox.api_key_id };
  }
  // The keys are credentials: readable by their owner only, like the installation's secrets.
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

const demo = await demoKey();
if (demo && !stopping)
  process.stdout.write(`
  E-mail verification service is running.

  Base URL:   ${baseUrl}/v1
  Docs:       ${baseUrl}/docs   (OpenAPI: ${baseUrl}/openapi.json)
  Console:    ${baseUrl}/console   (sign in with either key below)
  Demo key:   ${demo.api_key}   (account ${demo.account_id}, 1000 credits when created)
  Sandbox:    ${demo.sandbox_api_key}   (same account: canned answers, no charge)

  Try:        curl -H "SVC-API-KEY: ${demo.api_key}" ${baseUrl}/v1/credits
  Logs:       ${logsDir}   Admin: npm run admin -- create-account --name acme --credits 5000${embeddedPostgresData ? `\n  Database:   embedded PostgreSQL, data in ${embeddedPostgresData}` : ''}
  Stop:       Ctrl-C
`);
