// `npm test`: installs what is missing, finds or starts PostgreSQL, NATS and Redis, builds the apps, then runs
// every test tier (unit, integration, end-to-end) with Vitest and ends with "N passed, N failed".
// Arguments after `--` go to Vitest (e.g. `npm test -- test/e2e/platform.e2e-spec.ts`). Runs on Node.js 24, fetched
// from the npm registry when the machine's own is older (lib.mjs ensureNode).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  build,
  dataDir,
  ensureDependencies,
  ensureInfrastructure,
  ensureNode,
  root,
  stopStarted,
} from './lib.mjs';

await ensureNode();
await ensureDependencies();
const infra = await ensureInfrastructure({ redis: true });
await build();

const report = path.join(dataDir, 'vitest-report.json');
rmSync(report, { force: true });
const vitest = path.join(root, 'node_modules', '.bin', 'vitest');
const result = spawnSync(
  process.execPath,
  [
    vitest,
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...infra },
  },
);
stopStarted();

let summary = 'no test report was written';
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  summary = `${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
  if (r.numTotalTests === 0) summary = '0 passed, 0 failed (no test ran)';
}
process.stdout.write(`\n${summary}\n`);
process.exit(result.status ?? 1);
