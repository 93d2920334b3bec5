// `--profile`: V8 CPU profiles of the services during one extra run, outside the reported figures.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { TestSuite } from '@emailverify/testing';
import { benchRoot, log, sleep } from './common';

export const PROFILE = process.argv.includes('--profile');
const profileDir = path.join(benchRoot, '.data', 'bench', 'profiles');
/** Not SIGUSR2: Nest's shutdown hooks stop the application on that one. */
const TOGGLE: NodeJS.Signals = 'SIGWINCH';

/** Extra environment for the services when profiling: preloads cpu-profile-preload.js into each. */
export function profileEnv(): Record<string, string> {
  if (!PROFILE) return {};
  mkdirSync(profileDir, { recursive: true });
  return {
    NODE_OPTIONS: `--require ${path.join(__dirname, 'cpu-profile-preload.js')}`,
    BENCH_PROFILE_DIR: profileDir,
  };
}

/** Runs `run` once more with the profiler on in the named suite processes, and says where the profiles went. */
export async function profiled(
  suite: TestSuite,
  processes: string[],
  run: () => Promise<unknown>,
): Promise<void> {
  if (!PROFILE) return;
  const children = processes.map((name) => suite.processes.get(name)!);
  for (const p of children) p.child.kill(TOGGLE);
  await sleep(200);
  await run();
  for (const p of children) p.child.kill(TOGGLE);
  await sleep(2_000);
  for (const p of children) {
    const lines = p.output.join('').split('\n');
    const wrote = lines.filter((l) => l.startsWith('cpu-profile-preload: wrote'));
    log(`${p.name} profile: ${wrote.at(-1)?.slice('cpu-profile-preload: wrote '.length) ?? 'none written'}`);
  }
}
