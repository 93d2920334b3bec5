import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDatabase } from './database';

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
    const admin = new URL(base);
    admin.pathname = '/postgres';
    const su = new Client({ connectionString: admin.toString() });
    await su.connect();
    try {
      await su.query(`CREATE ROLE "${role}" LOGIN`);
      await su.query(`GRANT CONNECT ON DATABASE "${name}" TO "${role}"`);
      // This role may open only its own database.
      await su.query(`REVOKE CONNECT ON DATABASE postgres FROM PUBLIC`);
      const restricted = new URL(url);
      restricted.username = role;
      restricted.password = '';
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
