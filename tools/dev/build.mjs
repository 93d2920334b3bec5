// Compiles every app, lib and tool to dist/ (CommonJS, decorators with metadata, path aliases rewritten), or to
// the directory given as the first argument (a private build that leaves dist/ alone, e.g. for `npm run migrate`).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ensureDependencies, ensureNode, root } from './lib.mjs';

await ensureNode();
await ensureDependencies();
const out = path.resolve(root, process.argv[2] ?? 'dist');
rmSync(out, { recursive: true, force: true });
const swc = path.join(root, 'node_modules', '.bin', 'swc');
const result = spawnSync(
  process.execPath,
  [
    swc,
    'apps',
    'libs',
    'tools',
    '-d',
    out,
    '--copy-files',
    '--ignore',
    '**/*.spec.ts,**/*.int-spec.ts,**/*.mjs,**/project.json',
    '--quiet',
  ],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
