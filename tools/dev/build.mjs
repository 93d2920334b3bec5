// Compiles every app, lib and tool to dist/ (CommonJS, decorators with metadata, path aliases rewritten).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ensureNode, root } from './lib.mjs';

await ensureNode();
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const swc = path.join(root, 'node_modules', '.bin', 'swc');
const result = spawnSync(
  process.execPath,
  [
    swc,
    'apps',
    'libs',
    'tools',
    '-d',
    'dist',
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
