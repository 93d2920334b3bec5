import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A checkout whose package-lock.json is newer than its node_modules (as after a pull that changed the lock):
 * tools/dev/lib.mjs alone (it imports only Node built-ins), a lock file, and an older install marker.
 */
function staleCheckout(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ev-deps-'));
  mkdirSync(path.join(dir, 'tools', 'dev'), { recursive: true });
  copyFileSync(path.join(process.cwd(), 'tools/dev/lib.mjs'), path.join(dir, 'tools/dev/lib.mjs'));
  mkdirSync(path.join(dir, 'node_modules'));
  const marker = path.join(dir, 'node_modules', '.package-lock.json');
  writeFileSync(marker, '{}');
  const anHourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(marker, anHourAgo, anHourAgo);
  writeFileSync(path.join(dir, 'package-lock.json'), '{}');
  return dir;
}

function ensureDependencies(checkout: string) {
  return spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "await (await import('./tools/dev/lib.mjs')).ensureDependencies();"],
    { cwd: checkout, encoding: 'utf8' },
  );
}

describe('installing dependencies while npm start runs from the same checkout', () => {
  const dirs: string[] = [];
  // A running `npm start`: a live process (its build in the checkout's .data/builds says whose).
  let start: ChildProcess;
  beforeAll(() => {
    start = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  });
  afterAll(() => {
    start.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to empty node_modules under a running npm start, naming it and what to do', () => {
    const checkout = staleCheckout();
    dirs.push(checkout);
    mkdirSync(path.join(checkout, '.data', 'builds', `start-${start.pid}`), { recursive: true });
    // And one that ended without removing its build, which is not in the way.
    mkdirSync(path.join(checkout, '.data', 'builds', 'start-999999999'));

    const refused = ensureDependencies(checkout);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`npm start (pid ${start.pid}) runs its services`);
    expect(refused.stderr).toContain('stop it (Ctrl-C), then run this again');
    expect(refused.stdout).not.toContain('npm ci');
    expect(existsSync(path.join(checkout, 'node_modules', '.package-lock.json'))).toBe(true);
  });

  it('installs nothing when node_modules is as new as the lock file, npm start running or not', () => {
    const checkout = staleCheckout();
    dirs.push(checkout);
    writeFileSync(path.join(checkout, 'node_modules', '.package-lock.json'), '{}');
    mkdirSync(path.join(checkout, '.data', 'builds', `start-${start.pid}`), { recursive: true });
    const result = ensureDependencies(checkout);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toBe('');
  });
});
