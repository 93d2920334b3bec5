import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { dropDatabase } from '@emailverify/testing';
import { Client } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
/** A run that hangs is killed before the test's own timeout, so it cannot outlive the test. */
const RUN_LIMIT = { timeout: 25_000, killSignal: 'SIGKILL' as const };

describe('npm run migrate', () => {
  const name = `ev_test_migrate_${randomBytes(4).toString('hex')}`;
  const url = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  afterAll(async () => dropDatabase(name));

  it("creates the database and runs every service's migrations, leaving dist/ alone", async () => {
    const built = path.join(process.cwd(), 'dist/apps/gateway/src/main.js');
    const before = statSync(built).mtimeMs;
    const { stdout } = await run(process.execPath, ['tools/dev/migrate.mjs'], {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: url.toString() },
      ...RUN_LIMIT,
    });
    for (const service of ['credits', 'verifier', 'files', 'webhooks'])
      expect(stdout).toMatch(new RegExp(`${service}: [1-9]\\d* migration\\(s\\) applied`));
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      for (const schema of ['credits', 'verifier', 'files', 'webhooks']) {
        const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}".migrations`);
        expect(rows[0].n, schema).toBeGreaterThan(0);
      }
      // The tables the services use exist: one per schema is enough to tell.
      const { rows } = await client.query(
        `SELECT table_schema || '.' || table_name AS t FROM information_schema.tables
          WHERE table_schema || '.' || table_name IN ('credits.accounts', 'verifier.results', 'files.jobs', 'webhooks.deliveries')`,
      );
      expect(rows.map((r: { t: string }) => r.t).sort()).toEqual([
        'credits.accounts',
        'files.jobs',
        'verifier.results',
        'webhooks.deliveries',
      ]);
    } finally {
      await client.end();
    }
    // A second run finds nothing to do and still succeeds.
    await run(process.execPath, ['tools/dev/migrate.mjs'], {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: url.toString() },
      ...RUN_LIMIT,
    });
    expect(statSync(built).mtimeMs).toBe(before);
  });
});
