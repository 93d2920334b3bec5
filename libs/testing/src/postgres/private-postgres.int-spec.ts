import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivatePostgres } from './private-postgres';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * A test's own PostgreSQL, run as `npm start` runs the embedded one (as root: as the system user "postgres",
 * from a copy of the binaries it can reach when the checkout is in a mode-700 directory).
 */
describe('PrivatePostgres: a PostgreSQL server of a test of its own', () => {
  let postgres: PrivatePostgres;

  beforeAll(async () => {
    postgres = await PrivatePostgres.start();
  });
  afterAll(async () => {
    await postgres?.destroy();
  });

  it('answers on its port with the password of its URL, and keeps its data over a restart', async () => {
    await query(
      postgres.url,
      "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('before the restart')",
    );
    await postgres.stop();
    await expect(query(postgres.url, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    await postgres.startAgain();
    expect(await query(postgres.url, 'SELECT note FROM kept')).toEqual([{ note: 'before the restart' }]);
  });

  it('refuses a wrong password', async () => {
    const url = new URL(postgres.url);
    url.password = 'wrong';
    await expect(query(url.toString(), 'SELECT 1')).rejects.toThrow(/password authentication failed/);
  });

  it('stops for good once destroyed', async () => {
    const other = await PrivatePostgres.start();
    await query(other.url, 'SELECT 1');
    await other.destroy();
    await expect(query(other.url, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
  });
});
