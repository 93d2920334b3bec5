// `npm run check`: prettier, eslint with the OpenAPI lint (Redocly, redocly.yaml), the typed client's generated
// types against the documents, and the type-checker (`npm run lint` and `npm run typecheck` run one of them), on
// Node.js 24 like `npm test` (fetched from the npm registry when the machine's own is older).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureDependencies, ensureNode, root } from './lib.mjs';

// Both published OpenAPI documents under Redocly's recommended rules (redocly.yaml), and the typed client's
// generated types equal to what the documents generate: part of `lint`, and a step of its own
// (`node tools/dev/check.mjs openapi`).
const OPENAPI = [
  ['redocly', 'lint', '--format=stylish', 'docs/openapi.json', 'docs/openapi-legacy.json'],
  ['client-types', '--check'],
];
/** Steps that are scripts of this folder rather than tools of node_modules/.bin. */
const SCRIPTS = { 'client-types': path.join(root, 'tools', 'dev', 'client-types.mjs') };
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
for (const name of asked.length > 0 ? asked : ALL) {
  for (const [tool, ...args] of STEPS[name]) {
    const program = SCRIPTS[tool] ?? path.join(root, 'node_modules', '.bin', tool);
    const result = spawnSync(process.execPath, [program, ...args], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['inherit', tool === 'nx' ? 'ignore' : 'inherit', 'inherit'],
    });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}
