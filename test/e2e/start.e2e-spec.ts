import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { eventually, freePort } from '@emailverify/testing';
import { Client } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { buildInputsDigest, builtFrom } from '../../tools/dev/lib.mjs';

const SERVICE_OFFSETS = { credits: 101, verifier: 102, 'file-jobs': 103, webhooks: 104 } as const;
type AppName = 'gateway' | keyof typeof SERVICE_OFFSETS;

/** `npm start` as a user runs it, its output collected; `command` wraps it (e.g. in a network namespace). */
function npmStart(env: NodeJS.ProcessEnv, command: string[] = [process.execPath, 'tools/dev/start.mjs']) {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  const child: ChildProcess = spawn(command[0]!, command.slice(1), {
    cwd: process.cwd(),
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /**
   * Whether an app process this `npm start` reported runs yet: its pid, still running the build of this very
   * run (pids are reused quickly on a busy machine).
   */
  const runs = (pid: number) => {
    try {
      return running(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`start-${child.pid}`);
    } catch {
      return false;
    }
  };
  /** Every process id `npm start` reported starting, per app, in order. */
  const pids = () => {
    const found = new Map<string, number[]>();
    for (const m of output.matchAll(/\[emailverify\] ([a-z-]+) started \(pid (\d+)\)/g))
      found.set(m[1]!, [...(found.get(m[1]!) ?? []), Number(m[2])]);
    return found;
  };
  return { child, exited, output: () => output, pids, runs };
}

/** Whether the process runs (a zombie waiting for its parent counts as gone). */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return readFileSync(stat, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Processes whose command line names `text`. */
function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(text) && running(Number(pid))) found.push(`${pid}: ${cmdline}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Whether this test may make a network namespace: root, with unshare, nsenter and ip at hand. */
const canUnshare =
  userInfo().uid === 0 &&
  ['unshare', 'nsenter', 'ip'].every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/** A gateway port whose service ports (PORT+101 to +104) are free too on this shared machine. */
async function suitePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const offsets = [101, 102, 103, 104];
    if (port + 104 < 65536 && (await Promise.all(offsets.map((o) => bindable(port + o)))).every(Boolean))
      return port;
  }
}

async function readyAt(url: string): Promise<void> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
}

describe('npm start', () => {
  const id = `${process.pid}_${Date.now().toString(36)}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ev-start-'));
  const database = `ev_test_start_${id}`;
  const children: ChildProcess[] = [];

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    const admin = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.end();
    // The streams its installations made on this machine's NATS, as a suite's stop removes its own.
    for (const namespace of [`t_start_${id}`, `t_start_fail_${id}`]) {
      const bus = await MessageBus.connect({
        url: process.env.NATS_URL || 'nats://127.0.0.1:4222',
        namespace,
        name: 'start-test-cleanup',
      }).catch(() => undefined);
      if (!bus) continue;
      await new JetStreamKit(bus).deleteNamespaceStreams().catch(() => undefined);
      await bus.close();
    }
  });

  it(
    'starts the suite with a working demo key, brings back each service killed -9, and stops everything on Ctrl-C',
    { timeout: 600_000 },
    async () => {
      const port = await suitePort();
      const db = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/emailverify');
      db.pathname = `/${database}`;
      const run = npmStart({
        PORT: String(port),
        DATABASE_URL: db.toString(),
        NATS_NAMESPACE: `t_start_${id}`,
        EMAILVERIFY_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
      });
      children.push(run.child);

      // The demo key, or null when npm start exits before printing one.
      const key = await eventually(
        () => {
          const match = /Demo key:\s+(ev_\S+)/.exec(run.output());
          if (match) return match[1]!;
          if (run.child.exitCode !== null) return null;
          throw new Error(`no demo key printed yet:\n${run.output()}`);
        },
        { timeoutMs: 120_000, intervalMs: 100 },
      );
      if (key === null) throw new Error(`npm start exited early:\n${run.output()}`);
      expect(run.output()).toContain(`Base URL:   http://localhost:${port}/v1`);
      expect(run.output()).toContain(`Docs:       http://localhost:${port}/docs`);
      // It said what it was doing while it built, or which build of the same sources it runs: an earlier run's,
      // or a copy of dist/ (`npm test` builds dist/ before its tests, so then nothing is built again).
      expect(run.output()).toMatch(
        /building into \S+: done in \d+ s|using the build of an earlier run \(\S+\): the sources have not changed|using a copy of dist\/, built from the same sources \(\S+\)/,
      );
      if (builtFrom(path.join(process.cwd(), 'dist'))?.digest === buildInputsDigest())
        expect(run.output()).not.toMatch(/building into/);

      const credits = async () => {
        const res = await fetch(`http://127.0.0.1:${port}/v1/credits`, { headers: { 'SVC-API-KEY': key } });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ success: true, data: { credits_balance: 1000 } });
      };
      await credits();
      // The web console, from this run's own build, on the same origin.
      expect(run.output()).toContain(`Console:    http://localhost:${port}/console`);
      const consolePage = await fetch(`http://127.0.0.1:${port}/console`);
      expect(consolePage.status).toBe(200);
      expect(consolePage.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await consolePage.text()).toMatch(/<script type="module"[^>]* src="\/console\/assets\//);
      // A sandbox key of the same account beside it.
      const sandbox = /Sandbox:\s+(ev_test_\S+)/.exec(run.output())?.[1];
      expect(sandbox, run.output()).toBeDefined();
      const sandboxView = await fetch(`http://127.0.0.1:${port}/v1/credits`, {
        headers: { 'SVC-API-KEY': sandbox! },
      });
      expect(await sandboxView.json()).toMatchObject({ data: { credits_balance: 1000, mode: 'sandbox' } });
      // Every app runs from this run's own build, not dist/, which `npm test` and `npm run build` replace.
      const firstPids = [...run.pids().values()].flat();
      expect(firstPids).toHaveLength(5);
      expect(firstPids.filter(run.runs)).toEqual(firstPids);

      // Each service in turn, killed without warning: npm start says so, starts it again, and the suite is
      // ready again.
      const apps: AppName[] = ['gateway', 'verifier', 'file-jobs', 'credits', 'webhooks'];
      for (const app of apps) {
        const before = run.pids().get(app) ?? [];
        const victim = before.at(-1)!;
        expect(victim, `${app}'s pid was printed:\n${run.output()}`).toBeGreaterThan(0);
        process.kill(victim, 'SIGKILL');
        await eventually(
          async () => {
            expect(run.child.exitCode, run.output()).toBeNull();
            const now = run.pids().get(app) ?? [];
            expect(now.length, `${app} started again`).toBe(before.length + 1);
            await readyAt(`http://127.0.0.1:${port}/health/ready`);
            if (app !== 'gateway')
              await readyAt(`http://127.0.0.1:${port + SERVICE_OFFSETS[app]}/health/ready`);
          },
          { timeoutMs: 30_000, intervalMs: 200 },
        );
        expect(run.output()).toMatch(new RegExp(`${app} stopped unexpectedly \\(SIGKILL\\); restarting it`));
        expect(run.runs(victim)).toBe(false);
      }
      await credits();

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      const all = [...run.pids().values()].flat();
      expect(all.length).toBe(apps.length * 2);
      expect(all.filter(run.runs), `still running after Ctrl-C:\n${run.output()}`).toEqual([]);
      // Nor any other process running this run's build.
      expect(processesNaming(`start-${run.child.pid}/`)).toEqual([]);
      const ports = [port, ...Object.values(SERVICE_OFFSETS).map((offset) => port + offset)];
      const open: number[] = [];
      for (const p of ports) if (await listening(p)) open.push(p);
      expect(open, 'ports still open after Ctrl-C').toEqual([]);
    },
  );

  it(
    'stops everything, naming the service and its log, when one keeps failing',
    { timeout: 300_000 },
    async () => {
      const port = await suitePort();
      const db = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/emailverify');
      db.pathname = `/${database}`;
      const run = npmStart({
        PORT: String(port),
        DATABASE_URL: db.toString(),
        NATS_NAMESPACE: `t_start_fail_${id}`,
        EMAILVERIFY_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        // Only file-jobs reads it, and refuses it: file-jobs exits at every start.
        FILE_CHUNK_SIZE: '0',
      });
      children.push(run.child);
      expect(await run.exited).toBe(1);
      const output = run.output();
      // The sources are those of the run above: their build is used again, not made again.
      expect(output).toMatch(/using the build of an earlier run \(\S+\): the sources have not changed/);
      expect(output).not.toMatch(/building into/);
      expect(output).toMatch(/file-jobs stopped unexpectedly \(exit 1\); restarting it in 0\.5 s/);
      expect(output).toMatch(/file-jobs stopped unexpectedly \(exit 1\); restarting it in 1 s/);
      expect(output).toContain(
        `file-jobs keeps failing (5 exits in a row within 30 s of starting, last: exit 1); stopping everything. See ${path.join(dataDir, 'logs', 'file-jobs.log')}`,
      );
      expect(readFileSync(path.join(dataDir, 'logs', 'file-jobs.log'), 'utf8')).toContain('FILE_CHUNK_SIZE');
      expect(run.pids().get('file-jobs')).toHaveLength(5);
      const left = [...run.pids().values()].flat().filter(run.runs);
      expect(
        left,
        `${left.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8')).join('\n')}\n${output}`,
      ).toEqual([]);
      const open: number[] = [];
      for (const offset of [0, ...Object.values(SERVICE_OFFSETS)])
        if (await listening(port + offset)) open.push(port + offset);
      expect(open, 'ports still open').toEqual([]);
    },
  );

  it('with port 3000 taken, stops at once naming the port and starts nothing', async () => {
    // The default gateway port, held here unless something else on this machine holds it already.
    const holder = net.createServer();
    const held = await new Promise<boolean>((resolve, reject) => {
      holder.once('error', (err: NodeJS.ErrnoException) =>
        err.code === 'EADDRINUSE' ? resolve(false) : reject(err),
      );
      holder.listen(3000, '0.0.0.0', () => resolve(true));
    });
    try {
      expect(await bindable(3000)).toBe(false);
      const run = npmStart({
        PORT: undefined,
        // Nothing may be reached or started: not even the database is looked for.
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
        NATS_NAMESPACE: `t_start_busy_${id}`,
        EMAILVERIFY_DATA_DIR: dataDir,
      });
      children.push(run.child);
      expect(await run.exited).toBe(1);
      expect(run.output()).toMatch(/port(s)? already in use: 3000 \(gateway\)/);
      expect(run.output()).toContain('Nothing was started.');
      expect(run.output()).not.toMatch(/started \(pid|building|PostgreSQL|not available/);
    } finally {
      if (held) await new Promise((resolve) => holder.close(resolve));
    }
  });

  // Where nothing answers on the default addresses (a fresh machine, a container), as root: npm start starts
  // its own PostgreSQL (as the unprivileged system user "postgres", PostgreSQL refusing root) and NATS.
  it.runIf(canUnshare)(
    'with nothing reachable, as root, starts embedded PostgreSQL and NATS and its demo key works',
    { timeout: 300_000 },
    async () => {
      const nsData = mkdtempSync(path.join(tmpdir(), 'ev-start-ns-'));
      // PostgreSQL's user must be able to enter the data directory.
      chmodSync(nsData, 0o755);
      const env: NodeJS.ProcessEnv = { PORT: '3000', EMAILVERIFY_DATA_DIR: nsData, LOG_LEVEL: 'warn' };
      for (const name of ['DATABASE_URL', 'NATS_URL', 'REDIS_URL', 'NATS_NAMESPACE']) env[name] = undefined;
      const run = npmStart(env, [
        'unshare',
        '-n',
        'sh',
        '-c',
        `ip link set lo up && exec "${process.execPath}" tools/dev/start.mjs`,
      ]);
      children.push(run.child);
      try {
        const key = await eventually(
          () => {
            const match = /Demo key:\s+(ev_\S+)/.exec(run.output());
            if (match) return match[1]!;
            if (run.child.exitCode !== null) return null;
            throw new Error(`no demo key printed yet:\n${run.output()}`);
          },
          { timeoutMs: 240_000, intervalMs: 200 },
        );
        if (key === null) throw new Error(`npm start exited early:\n${run.output()}`);
        expect(run.output()).toContain('starting embedded PostgreSQL');
        expect(run.output()).toContain('starting nats-server with JetStream');

        // The suite lives in the namespace: ask from inside it.
        const asked = spawnSync(
          'nsenter',
          [
            '-t',
            String(run.child.pid),
            '-n',
            '--',
            process.execPath,
            '-e',
            `fetch('http://127.0.0.1:3000/v1/credits', { headers: { 'SVC-API-KEY': process.argv[1] } })
               .then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.json() })))`,
            key,
          ],
          { encoding: 'utf8' },
        );
        expect(asked.status, asked.stderr).toBe(0);
        expect(JSON.parse(asked.stdout)).toMatchObject({
          status: 200,
          body: { success: true, data: { credits_balance: 1000 } },
        });
        const postgres = processesNaming(path.join(nsData, 'postgres'));
        expect(postgres.length, 'embedded PostgreSQL runs').toBeGreaterThan(0);

        run.child.kill('SIGINT');
        expect(await run.exited).toBe(0);
        // Every app, PostgreSQL and nats-server stopped with it.
        expect([...run.pids().values()].flat().filter(run.runs)).toEqual([]);
        expect(processesNaming(nsData)).toEqual([]);
      } finally {
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
        rmSync(nsData, { recursive: true, force: true });
      }
    },
  );
});
