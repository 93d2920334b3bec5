import { randomBytes } from 'node:crypto';
import { type DataSource, type MigrationClass, openSchemaDataSource } from '@emailverify/persistence';
import { Client } from 'pg';

/** Drops a test database, closing whatever still holds it. */
export async function dropDatabase(name: string): Promise<void> {
  const admin = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** A throwaway database with one service's schema migrated, for repository tests. */
export async function openTestDatabase(
  schema: string,
  migrations: MigrationClass[],
): Promise<{ db: DataSource; drop(): Promise<void> }> {
  const name = `ev_test_${schema}_${randomBytes(4).toString('hex')}`;
  const url = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  url.pathname = `/${name}`;
  const db = await openSchemaDataSource({ url: url.toString(), schema, migrations });
  return {
    db,
    drop: async () => {
      if (db.isInitialized) await db.destroy();
      await dropDatabase(name);
    },
  };
}
