// `npm run admin -- <command>`: the admin CLI, built on demand.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { build, ensureDependencies, ensureNode, root } from './lib.mjs';

await ensureNode();
await ensureDependencies();
if (!existsSync(path.join(root, 'dist/tools/admin/main.js'))) await build();
const result = spawnSync(
  process.execPath,
  [path.join(root, 'dist/tools/admin/main.js'), ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
