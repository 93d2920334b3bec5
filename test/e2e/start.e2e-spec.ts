import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, freePort } from '@emailverify/testing';
import { Client } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

describe('npm start', () => {
  const id = `${process.pid}_${Date.now().toString(36)}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ev-start-'));
  const database = `ev_test_start_${id}`;
  let child: ChildProcess | undefined;

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    const admin = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.end();
  });

  it('starts the suite, prints the URLs and a demo key that works, and stops everything on Ctrl-C', async () => {
    // A port whose service ports (PORT+101…) are very likely free too.
    const port = await freePort();
    const db = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/emailverify');
    db.pathname = `/${database}`;
    child = spawn(process.execPath, ['tools/dev/start.mjs'], {
      cwd: process.cwd(),
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: db.toString(),
        NATS_NAMESPACE: `t_start_${id}`,
        EMAILVERIFY_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));

    // The demo key, or null when npm start exits before printing one.
    const key = await eventually(
      () => {
        const match = /Demo key:\s+(ev_\S+)/.exec(output);
        if (match) return match[1]!;
        if (child!.exitCode !== null) return null;
        throw new Error(`no demo key printed yet:\n${output}`);
      },
      { timeoutMs: 50_000, intervalMs: 100 },
    );
    if (key === null) throw new Error(`npm start exited early:\n${output}`);
    expect(output).toContain(`Base URL:   http://localhost:${port}/v1`);
    expect(output).toContain(`Docs:       http://localhost:${port}/docs`);

    const res = await fetch(`http://127.0.0.1:${port}/v1/credits`, { headers: { 'SVC-API-KEY': key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, data: { credits_balance: 1000 } });

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();
  });
});
