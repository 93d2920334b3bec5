import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation, openSchemaDataSource, prepared } from './database';
import { Sql } from './sql';

describe('Sql over a data source (real PostgreSQL)', () => {
  const name = `ev_test_sql_${randomBytes(4).toString('hex')}`;
  const base = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const url = new URL(base);
  url.pathname = `/${name}`;
  let db: DataSource;
  let sql: Sql;

  beforeAll(async () => {
    db = await openSchemaDataSource({ url: url.toString(), schema: 'sqltest', migrations: [], poolSize: 2 });
    sql = new Sql(db);
    await sql.affected(`CREATE TABLE sqltest.items (id int PRIMARY KEY, label text NOT NULL)`);
  });

  afterAll(async () => {
    await db?.destroy();
    const admin = new URL(base);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  });

  it('gives rows and affected counts the same way for INSERT, UPDATE ... RETURNING, DELETE and SELECT', async () => {
    expect(await sql.affected(`INSERT INTO sqltest.items VALUES (1, 'a'), (2, 'b'), (3, 'c')`)).toBe(3);
    const updated = await sql.rows<{ id: number }>(
      `UPDATE sqltest.items SET label = label || '!' WHERE id >= $1 RETURNING id`,
      [2],
    );
    expect(updated.map((r) => r.id).sort()).toEqual([2, 3]);
    expect(await sql.affected(`UPDATE sqltest.items SET label = 'x' WHERE id = $1`, [99])).toBe(0);
    expect(await sql.one<{ label: string }>(`SELECT label FROM sqltest.items WHERE id = $1`, [3])).toEqual({
      label: 'c!',
    });
    expect(await sql.one(`SELECT label FROM sqltest.items WHERE id = $1`, [42])).toBeUndefined();
    expect(await sql.affected(`DELETE FROM sqltest.items WHERE id = $1`, [1])).toBe(1);
  });

  it('runs a named prepared statement on every pooled connection', async () => {
    const byId = prepared('sqltest_label_by_id', `SELECT label FROM sqltest.items WHERE id = $1`);
    const answers = await Promise.all([2, 3, 2, 3].map((id) => sql.one<{ label: string }>(byId, [id])));
    expect(answers.map((a) => a?.label)).toEqual(['b!', 'c!', 'b!', 'c!']);
  });

  it('commits a transaction that resolves and rolls back one that throws, passing its error on', async () => {
    await sql.transaction(async (tx) => {
      await tx.affected(`INSERT INTO sqltest.items VALUES (10, 'kept')`);
      expect(await tx.one(`SELECT label FROM sqltest.items WHERE id = 10`)).toEqual({ label: 'kept' });
    });
    const failure = new Error('stop here');
    await expect(
      sql.transaction(async (tx) => {
        await tx.affected(`INSERT INTO sqltest.items VALUES (11, 'lost')`);
        throw failure;
      }),
    ).rejects.toBe(failure);
    const ids = await sql.rows<{ id: number }>(`SELECT id FROM sqltest.items WHERE id >= 10 ORDER BY id`);
    expect(ids).toEqual([{ id: 10 }]);
  });

  it('commits without waiting for the flush only inside the transaction that asks for it', async () => {
    const inside = await sql.transaction(
      (tx) => tx.one<{ setting: string }>(`SELECT current_setting('synchronous_commit') AS setting`),
      { withoutFlushWait: true },
    );
    expect(inside?.setting).toBe('off');
    const after = await sql.one<{ setting: string }>(
      `SELECT current_setting('synchronous_commit') AS setting`,
    );
    expect(after?.setting).toBe('on');
  });

  it("fails a refused statement with the server's SQLSTATE, which the callers' checks read", async () => {
    const again = `INSERT INTO sqltest.items VALUES (2, 'again')`;
    const alone = await sql.affected(again).catch((err: unknown) => err);
    expect(isUniqueViolation(alone), String(alone)).toBe(true);
    const inTransaction = await sql
      .transaction((tx) => tx.affected(again), { withoutFlushWait: true })
      .catch((err: unknown) => err);
    expect(isUniqueViolation(inTransaction), String(inTransaction)).toBe(true);
    expect(await sql.one(`SELECT label FROM sqltest.items WHERE id = 2`)).toEqual({ label: 'b!' });
  });

  it('hands every connection back to the pool, after failures too', async () => {
    for (let i = 0; i < 5; i++) {
      await expect(sql.rows(`SELECT * FROM sqltest.missing`)).rejects.toMatchObject({ code: '42P01' });
      await expect(sql.transaction((tx) => tx.rows(`SELECT * FROM sqltest.missing`))).rejects.toMatchObject({
        code: '42P01',
      });
    }
    // A pool of two would be exhausted (and this would wait for the pool's time-out) had any leaked.
    expect(await sql.one<{ n: number }>(`SELECT count(*)::int AS n FROM sqltest.items`)).toEqual({ n: 3 });
  });
});
