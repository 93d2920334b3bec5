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

/** Each app's entry (one bundled file, tools/dev/bundle.mjs) with the V8 flags it runs with. */
const WARM: { entry: string; flags: readonly string[] }[] = [
  ...['credits', 'verifier', 'file-jobs', 'webhooks'].map((app) => ({
    entry: `dist/apps/${app}/src/main.js`,
    flags: APP_NODE_FLAGS,
  })),
  { entry: 'dist/apps/gateway/src/main.js', flags: GATEWAY_NODE_FLAGS },
];

/**
 * Fills the compile cache with the apps' code. Node writes the cache when a process exits on its own, which the
 * apps of a suite seldom do (a suite kills them when it stops): here each app is run once with a LOG_LEVEL it
 * refuses, which it checks after its whole bundle has loaded, and exits (the cache holds code for the V8 flags
 * it was compiled with, so each runs with its own). Does nothing without a cache or a build.
 */
export async function warmCompileCache(): Promise<void> {
  const dir = compileCacheDir();
  if (!dir) return;
  await Promise.all(
    WARM.map(async ({ entry, flags }) => {
      const file = path.join(repoRoot, entry);
      if (!existsSync(file)) return;
      await new Promise<void>((resolve) => {
        const child = spawn(process.execPath, [...flags, file], {
          cwd: repoRoot,
          env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: dir, LOG_LEVEL: 'not-a-level' },
          stdio: 'ignore',
        });
        // A warm-up that fails only leaves the cache colder: the apps start as they would without it.
        child.once('error', () => resolve());
        child.once('exit', () => resolve());
      });
    }),
  );
}
