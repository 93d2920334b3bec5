import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDatabase, isTransientDatabaseError, openSchemaDataSource } from './database';

describe('ensureDatabase (real PostgreSQL)', () => {
  const name = `ev_test_ensure_${randomBytes(4).toString('hex')}`;
  const base = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const url = new URL(base);
  url.pathname = `/${name}`;

  afterAll(async () => {
    const admin = new URL(base);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  });

  it('creates a missing database once, even when several services start together', async () => {
    await Promise.all(Array.from({ length: 6 }, () => ensureDatabase(url.toString())));
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    expect((await client.query('SELECT current_database() AS db')).rows[0].db).toBe(name);
    await client.end();
  });

  it('opens an existing database without touching the postgres database (restricted roles, PgBouncer)', async () => {
    const role = `ev_test_role_${randomBytes(4).toString('hex')}`;
    // A password of its own: servers that ask for one (an embedded PostgreSQL) and trusting ones alike.
    const password = randomBytes(12).toString('hex');
    const admin = new URL(base);
    admin.pathname = '/postgres';
    const su = new Client({ connectionString: admin.toString() });
    await su.connect();
    try {
      await su.query(`CREATE ROLE "${role}" LOGIN PASSWORD '${password}'`);
      await su.query(`GRANT CONNECT ON DATABASE "${name}" TO "${role}"`);
      // This role may open only its own database.
      await su.query(`REVOKE CONNECT ON DATABASE postgres FROM PUBLIC`);
      const restricted = new URL(url);
      restricted.username = role;
      restricted.password = password;
      const asAdmin = new URL(restricted);
      asAdmin.pathname = '/postgres';
      const refused = new Client({ connectionString: asAdmin.toString() });
      await expect(refused.connect()).rejects.toMatchObject({ code: '42501' });
      await refused.end().catch(() => undefined);
      await expect(ensureDatabase(restricted.toString())).resolves.toBeUndefined();
    } finally {
      await su.query(`GRANT CONNECT ON DATABASE postgres TO PUBLIC`);
      await su.query(`REVOKE ALL ON DATABASE "${name}" FROM "${role}"`);
      await su.query(`DROP ROLE IF EXISTS "${role}"`);
      await su.end();
    }
  });
});

describe('the connection pool (real PostgreSQL)', () => {
  const name = `ev_test_pool_${randomBytes(4).toString('hex')}`;
  const base = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const url = new URL(base);
  url.pathname = `/${name}`;
  let db: DataSource | undefined;

  afterAll(async () => {
    if (db?.isInitialized) await db.destroy();
    const admin = new URL(base);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  });

  it('fails a query that waits too long for a connection, as a failure worth retrying, and serves it later', async () => {
    db = await openSchemaDataSource({
      url: url.toString(),
      schema: 'pool_test',
      migrations: [],
      poolSize: 1,
      poolTimeoutMs: 300,
    });
    const holder = db.createQueryRunner();
    await holder.connect();
    let waited: unknown;
    try {
      waited = await db.query('SELECT 1').then(
        () => 'answered',
        (err: unknown) => err,
      );
    } finally {
      await holder.release();
    }
    expect(waited).toBeInstanceOf(Error);
    expect(String(waited)).toMatch(/timeout exceeded when trying to connect/);
    expect(isTransientDatabaseError(waited)).toBe(true);
    // The connection is back in the pool: the same query now answers.
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('tells a dropped connection from a refused statement', async () => {
    expect(db).toBeDefined();
    const refused = await db!.query('SELECT * FROM no_such_table').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Error);
    expect(isTransientDatabaseError(refused), String(refused)).toBe(false);
    const runner = db!.createQueryRunner();
    await runner.connect();
    const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
    const admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    // Waits until the session is gone (PostgreSQL 14+), so the next query meets a dropped connection.
    await admin.query('SELECT pg_terminate_backend($1, 10000)', [pid]);
    await admin.end();
    const dropped = await runner.query('SELECT 1').catch((err: unknown) => err);
    await runner.release().catch(() => undefined);
    expect(dropped).toBeInstanceOf(Error);
    expect(isTransientDatabaseError(dropped), String(dropped)).toBe(true);
  });
});
