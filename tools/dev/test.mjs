// `npm test`: installs what is missing, finds or starts PostgreSQL, NATS and Redis, builds the apps, then runs
// every test tier (unit, integration, end-to-end) with Vitest and ends with "N passed, N failed".
// `npm run test:unit` (`--unit`): the unit and service specs only (Vitest's `unit` project), with no PostgreSQL,
// NATS, Redis or build: what to run while editing.
// Arguments after `--` go to Vitest (e.g. `npm test -- test/e2e/platform.e2e-spec.ts`). Runs on Node.js 24, fetched
// from the npm registry when the machine's own is older (lib.mjs ensureNode).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  build,
  dataDir,
  ensureDependencies,
  ensureInfrastructure,
  ensureNode,
  root,
  stopStartedAndWait,
} from './lib.mjs';
import { summarize } from './test-summary.mjs';

await ensureNode();
await ensureDependencies();
const unitOnly = process.argv[2] === '--unit';
const vitestArgs = unitOnly ? ['--project', 'unit', ...process.argv.slice(3)] : process.argv.slice(2);
const infra = unitOnly ? {} : await ensureInfrastructure({ redis: true });
if (!unitOnly) await build();

const report = path.join(dataDir, unitOnly ? 'vitest-unit-report.json' : 'vitest-report.json');
rmSync(report, { force: true });
const vitest = path.join(root, 'node_modules', '.bin', 'vitest');
// Vitest runs while this process goes on reading what the stores it started print (an embedded PostgreSQL
// writes its log to a pipe here): a blocked event loop would fill that pipe and stall the server at its next
// log line, e.g. a checkpoint's.
const vitestRun = spawn(
  process.execPath,
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...infra },
  },
);
// Ctrl-C reaches Vitest too (the terminal signals the whole group): it stops, then the stores are stopped here.
const ignoreInterrupt = () => {};
process.on('SIGINT', ignoreInterrupt);
process.on('SIGTERM', () => vitestRun.kill('SIGTERM'));
const result = await new Promise((resolve) => {
  vitestRun.once('error', (err) => resolve({ status: 1, error: err }));
  vitestRun.once('exit', (code, signal) => resolve({ status: code ?? (signal ? 1 : 0) }));
});
if (result.error) process.stderr.write(`vitest could not start: ${result.error.message}\n`);
await stopStartedAndWait();
process.off('SIGINT', ignoreInterrupt);

const summary = existsSync(report)
  ? summarize(JSON.parse(readFileSync(report, 'utf8')))
  : 'no test report was written';
process.stdout.write(`\n${summary}\n`);
process.exit(result.status ?? 1);
