// `npm run check`: prettier, eslint with the OpenAPI lint (Redocly, redocly.yaml) and the type-checker (`npm run
// lint` and `npm run typecheck` run one of them), on Node.js 24 like `npm test` (fetched from the npm registry when
// the machine's own is older). ESLint's typed rules and the type-checker read the typed client's types, which are
// not committed: they are written first from the committed OpenAPI documents when missing or out of date.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { clientTypes } from './client-types.mjs';
import { ensureDependencies, ensureNode, root } from './lib.mjs';

// Both published OpenAPI documents under Redocly's recommended rules (redocly.yaml): part of `lint`, and a step
// of its own (`node tools/dev/check.mjs openapi`).
const OPENAPI = [['redocly', 'lint', '--format=stylish', 'docs/openapi.json', 'docs/openapi-legacy.json']];
/** The steps that read the typed client's generated types. */
const READ_CLIENT_TYPES = ['lint', 'typecheck'];
const STEPS = {
  format: [['prettier', '--check', '.']],
  // The module-boundary rule reads the Nx project graph, which `nx show projects` computes first.
  lint: [['nx', 'show', 'projects'], ['eslint', '.'], ...OPENAPI],
  // The services and tools (Node.js), then the web console (the browser's DOM, JSX; apps/console/tsconfig.json).
  typecheck: [
    ['tsc', '-p', 'tsconfig.json', '--noEmit'],
    ['tsc', '-p', 'apps/console/tsconfig.json', '--noEmit'],
  ],
  openapi: OPENAPI,
};
/** What `npm run check` runs: every step (the OpenAPI lint within lint). */
const ALL = ['format', 'lint', 'typecheck'];

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in STEPS));
if (unknown.length > 0) {
  process.stderr.write(`usage: node tools/dev/check.mjs [${Object.keys(STEPS).join('|')}]...\n`);
  process.exit(2);
}

await ensureNode();
await ensureDependencies();
const steps = asked.length > 0 ? asked : ALL;
if (steps.some((name) => READ_CLIENT_TYPES.includes(name))) await clientTypes();
for (const name of steps) {
  for (const [tool, ...args] of STEPS[name]) {
    const program = path.join(root, 'node_modules', '.bin', tool);
    const result = spawnSync(process.execPath, [program, ...args], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['inherit', tool === 'nx' ? 'ignore' : 'inherit', 'inherit'],
    });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}
