import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { holdPort, launch, type RunningProcess, repoRoot, stopProcess, waitUntilReady } from './processes';

// Suites running side by side pick free ports for their processes: a process that could not bind its port must
// never be taken for ready because another suite's process answers there.
describe('waitUntilReady', () => {
  const dir = path.join(repoRoot, '.data', `processes-spec-${process.pid}`);
  const script = (name: string, body: string) => {
    writeFileSync(path.join(dir, name), body);
    return path.relative(repoRoot, path.join(dir, name));
  };
  const running: RunningProcess[] = [];
  beforeAll(() => mkdirSync(dir, { recursive: true }));
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => stopProcess(p, 'SIGKILL')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const healthServer = (port: number) =>
    `require('node:http').createServer((req, res) => res.end('ok')).listen(${port}, '127.0.0.1');`;

  it('is ready when the launched process itself answers on its port', async () => {
    const held = await holdPort();
    await held.release();
    const proc = launch('own', script('own.js', healthServer(held.port)), { PATH: process.env.PATH });
    running.push(proc);
    await expect(
      waitUntilReady(proc, `http://127.0.0.1:${held.port}/health`, 20_000),
    ).resolves.toBeUndefined();
  });

  it("refuses another process's answer on the port, and names the launched process when it dies", async () => {
    const stranger = http.createServer((req, res) => res.end('ok'));
    await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve));
    const port = (stranger.address() as { port: number }).port;
    try {
      // The launched process cannot bind the port the stranger holds, and dies of it.
      const proc = launch('late', script('late.js', healthServer(port)), { PATH: process.env.PATH });
      running.push(proc);
      await expect(waitUntilReady(proc, `http://127.0.0.1:${port}/health`, 20_000)).rejects.toThrow(
        /late exited with 1 before it was ready[\s\S]*EADDRINUSE/,
      );
      // One that stays up without listening is never ready while the stranger answers.
      const idle = launch('idle', script('idle.js', 'setInterval(() => {}, 1000);'), {
        PATH: process.env.PATH,
      });
      running.push(idle);
      await expect(waitUntilReady(idle, `http://127.0.0.1:${port}/health`, 2_000)).rejects.toThrow(
        /idle was not ready .*another process answers on its port/,
      );
    } finally {
      await new Promise((resolve) => stranger.close(resolve));
    }
  });
});
