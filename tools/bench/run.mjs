// `npm run bench -- <name> [--quick] [--profile]`: on-demand benchmarks, never part of
// `npm test`. Compiles apps, libs and tools with the repository's swc settings into a private directory
// (.data/bench/build/dist) and bundles each app's entry as the build does (../dev/bundle.mjs: the apps run as
// they run in production), so a benchmark neither wipes nor depends on a dist/ that someone else is
// rebuilding, then runs the benchmark there. See tools/bench/README.md.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { YOUNG_GENERATION_FLAGS } from '../dev/apps.mjs';
import { bundleApps } from '../dev/bundle.mjs';
import { ensureDependencies, ensureNode, root } from '../dev/lib.mjs';

const BENCHMARKS = {
  gateway: 'GET /v1/verify/disposable through the gateway vs a bare node:http server (64 connections)',
  single:
    'POST /v1/verify/single MX-only, uncached, 1 and 8 accounts, vs GET /v1/verify/disposable through the same gateway',
  bulk: 'POST /v1/verify/bulk, batches of 100 new addresses, MX-only, vs the verification library in-process',
  file: 'a 100,000-row CSV (--large: 1,000,000) upload to completed, 1 and 2 verifiers, vs the libraries in-process',
  webhooks:
    'job completed to signed delivery (p50, p99); deliveries/s to 25 webhooks vs a bare node:https client (retired target); ' +
    'product load: 1,000 jobs of 200 accounts over a minute, p50/p99 against the target',
};

const [name, ...rest] = process.argv.slice(2);
const names = name === 'all' ? Object.keys(BENCHMARKS) : [name];
if (!name || !names.every((n) => n in BENCHMARKS)) {
  process.stderr.write(
    'usage: npm run bench -- <name|all> [--quick] [--profile] [--large]\n' +
      Object.entries(BENCHMARKS)
        .map(([n, what]) => `  ${n.padEnd(8)} ${what}\n`)
        .join('') +
      '  --quick    short phases and one round (a smoke run; figures are not stable)\n' +
      '  --profile  (gateway, single, bulk, file, webhooks) write CPU profiles of the services to .data/bench/profiles\n' +
      '  --large    (file) 1,000,000 rows instead of 100,000 (about 15 minutes)\n' +
      '  --lookup-delay-ms N  (file, bulk, single) how long the Gravatar and RDAP stand-ins take to answer (default 50)\n',
  );
  process.exit(2);
}

await ensureNode();
await ensureDependencies();
const buildDir = path.join(root, '.data', 'bench', 'build');
rmSync(buildDir, { recursive: true, force: true });
process.stdout.write(`[bench] building into ${path.relative(root, buildDir)}/dist…\n`);
const swc = path.join(root, 'node_modules', '.bin', 'swc');
// The same invocation as tools/dev/build.mjs, to another output directory.
const built = spawnSync(
  process.execPath,
  [
    swc,
    'apps',
    'libs',
    'tools',
    '-d',
    path.join(buildDir, 'dist'),
    '--copy-files',
    '--ignore',
    '**/*.spec.ts,**/*.int-spec.ts,**/*.mjs,**/project.json',
    '--quiet',
  ],
  { cwd: root, stdio: 'inherit' },
);
if (built.status !== 0) process.exit(built.status ?? 1);
await bundleApps(root, path.join(buildDir, 'dist'));
// The test harness reads the apps' V8 flags from their one source, relative to its working directory.
mkdirSync(path.join(buildDir, 'tools', 'dev'), { recursive: true });
copyFileSync(
  path.join(root, 'tools', 'dev', 'node-flags.json'),
  path.join(buildDir, 'tools', 'dev', 'node-flags.json'),
);

let current;
for (const signal of ['SIGINT', 'SIGTERM']) {
  // The benchmark cleans up on its own signal; keep this process alive until it has.
  process.on(signal, () => current?.kill(signal));
}

for (const n of names) {
  const code = await new Promise((resolve) => {
    // cwd = the build directory: the test harness finds the apps at <cwd>/dist/apps/...
    // The benchmark process (the library side of every comparison) runs with the apps' young generation too,
    // without their bound on the old one (it holds whole files and their results).
    current = spawn(
      process.execPath,
      [...YOUNG_GENERATION_FLAGS, path.join(buildDir, 'dist', 'tools', 'bench', `${n}.js`), ...rest],
      {
        cwd: buildDir,
        env: { ...process.env, BENCH_ROOT: root },
        stdio: 'inherit',
      },
    );
    current.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
  if (code !== 0) process.exit(code);
}
