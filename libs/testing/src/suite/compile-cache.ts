import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { APP_NODE_FLAGS, GATEWAY_NODE_FLAGS, repoRoot } from './processes';

/**
 * Where V8 keeps the code it compiled for the processes the tests start (NODE_COMPILE_CACHE, set for the whole
 * run by vitest.config.ts), or undefined when it is not set. A suite starts five apps, and every start compiles
 * the same modules again; with the cache a start takes about a third less CPU.
 */
export function compileCacheDir(): string | undefined {
  return process.env.NODE_COMPILE_CACHE || undefined;
}

/** What each app loads before it starts serving: its module, and the service kit that runs it. */
const WARM: { entries: string[]; flags: readonly string[] }[] = [
  {
    entries: ['credits', 'verifier', 'file-jobs', 'webhooks'].map(
      (app) => `dist/apps/${app}/src/app.module.js`,
    ),
    flags: APP_NODE_FLAGS,
  },
  { entries: ['dist/apps/gateway/src/app.module.js'], flags: GATEWAY_NODE_FLAGS },
];

/**
 * Fills the compile cache with the apps' modules. Node writes the cache when a process exits on its own, which
 * the apps of a suite seldom do (a suite kills them when it stops): here one process per set of V8 flags (the
 * cache holds code for the flags it was compiled with) loads them and exits. Does nothing without a cache or a
 * build.
 */
export async function warmCompileCache(): Promise<void> {
  const dir = compileCacheDir();
  if (!dir) return;
  await Promise.all(
    WARM.map(async ({ entries, flags }) => {
      const files = [...entries, 'dist/libs/service-kit/src/index.js']
        .map((entry) => path.join(repoRoot, entry))
        .filter((file) => existsSync(file));
      if (files.length === 0) return;
      const script = `require('reflect-metadata');${files.map((f) => `require(${JSON.stringify(f)});`).join('')}`;
      await new Promise<void>((resolve) => {
        const child = spawn(process.execPath, [...flags, '-e', script], {
          cwd: repoRoot,
          env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: dir },
          stdio: 'ignore',
        });
        // A warm-up that fails only leaves the cache colder: the apps start as they would without it.
        child.once('error', () => resolve());
        child.once('exit', () => resolve());
      });
    }),
  );
}
