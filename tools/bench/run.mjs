// `npm run bench -- <name> [--quick] [--profile]`: on-demand benchmarks, never part of
// `npm test`. Builds as `npm run build` does (../dev/build.mjs: the apps bundled, as they run in production)
// into a private directory (.data/bench/build/dist), so a benchmark neither wipes nor depends on a dist/ that
// someone else is rebuilding, then runs the benchmark there. See tools/bench/README.md.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { YOUNG_GENERATION_FLAGS } from '../dev/apps.mjs';
import { build, ensureDependencies, ensureNode, root } from '../dev/lib.mjs';

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
await build(path.join(buildDir, 'dist'));
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
