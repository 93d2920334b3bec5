// `npm run openapi`: regenerates the committed docs/openapi.json from the code, on Node.js 24 like `npm test`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { build, ensureDependencies, ensureNode, root } from './lib.mjs';

await ensureNode();
await ensureDependencies();
await build();
for (const args of [
  ['dist/apps/gateway/src/openapi/write-openapi.js', 'docs/openapi.json'],
  [path.join(root, 'node_modules', '.bin', 'prettier'), '--write', 'docs/openapi.json'],
]) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
