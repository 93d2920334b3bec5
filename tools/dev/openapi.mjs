// `npm run openapi`: regenerates the committed OpenAPI documents (docs/openapi.json, the current style, and
// docs/openapi-legacy.json) from the code, and the typed client's types from them, on Node.js 24 like `npm test`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { build, ensureDependencies, ensureNode, root } from './lib.mjs';

await ensureNode();
await ensureDependencies();
await build();
const { clientTypes } = await import('./client-types.mjs');
for (const args of [
  ['dist/apps/gateway/src/openapi/write-openapi.js'],
  [
    path.join(root, 'node_modules', '.bin', 'prettier'),
    '--write',
    'docs/openapi.json',
    'docs/openapi-legacy.json',
  ],
]) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
await clientTypes();
