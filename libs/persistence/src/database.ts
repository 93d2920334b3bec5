import { Client } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';

export interface SchemaDataSourceOptions {
  url: string;
  /** The one schema this service owns. */
  schema: string;
  migrations: Array<new () => MigrationInterface>;
  /** Connection pool size (default 10). */
  poolSize?: number;
  /**
   * How long a query waits for a pooled connection (or for a new one to connect) before it fails instead of
   * waiting forever (default 10 s).
   */
  poolTimeoutMs?: number;
  applicationName?: string;
}

/**
 * Creates the database named in `url` when it does not exist yet. The target is tried first, so where it exists
 * (the usual case, and the only one behind PgBouncer or with a role that may not open the `postgres`
 * database) nothing else is touched; only a missing database (3D000) asks `postgres` to create it.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const probe = new Client({ connectionString: url });
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    // Services starting together race to create it; losing that race is fine. PostgreSQL reports the loser as
    // 42P04 (exists) or, when both got past the check, 23505 on pg_database's unique index.
    const code = (err as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw err;
  } finally {
    await client.end();
  }
}

/**
 * Opens a TypeORM data source bound to one schema, creates the schema and runs the service's migrations
 * (each in its own transaction, recorded in `<schema>.migrations`).
 */
export async function openSchemaDataSource(options: SchemaDataSourceOptions): Promise<DataSource> {
  await ensureDatabase(options.url);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    applicationName: options.applicationName,
    extra: { max: options.poolSize ?? 10, connectionTimeoutMillis: options.poolTimeoutMs ?? 10_000 },
    logging: false,
  });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
  // Migrations of concurrent replicas are serialised by an advisory lock named after the schema.
  await withAdvisoryLock(options.url, `migrations:${options.schema}`, () =>
    dataSource.runMigrations({ transaction: 'each' }),
  );
  return dataSource;
}

/**
 * Runs `work` while holding a session-level advisory lock, on a connection of its own rather than one of the
 * pool: the work's own queries then have the whole pool (even a pool of one).
 */
async function withAdvisoryLock<T>(url: string, key: string, work: () => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  // A connection lost meanwhile fails the query in hand; its 'error' event must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    return await work();
  } finally {
    // Ending the session releases the lock.
    await client.end().catch(() => undefined);
  }
}

/** SQLSTATE classes and codes of failures that say nothing about the statement: it may simply be run again. */
const TRANSIENT_SQLSTATES = [
  /^08/, // connection exception
  /^57P0[1-3]$/, // admin / crash shutdown, cannot connect now (a restart)
  /^53300$/, // too many connections
  /^40001$|^40P01$/, // serialization failure, deadlock
];
const TRANSIENT_MESSAGES =
  /Connection terminated|ECONNRESET|ECONNREFUSED|EPIPE|timeout exceeded when trying to connect|Query runner already released|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)/i;

/**
 * Whether a database failure is one of reaching the server (a restart, a dropped connection, a full pool) rather
 * than of the statement: work that failed with it can be done again once the server answers.
 */
export function isTransientDatabaseError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && TRANSIENT_SQLSTATES.some((re) => re.test(code))) return true;
    if (typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT)$/.test(code)) return true;
    if (typeof message === 'string' && TRANSIENT_MESSAGES.test(message)) return true;
    // TypeORM wraps driver errors (QueryFailedError keeps the driver's as driverError).
    e = (e as { driverError?: unknown; cause?: unknown }).driverError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * TypeORM's postgres driver answers UPDATE/DELETE ... RETURNING with `[rows, count]` and everything else with
 * `rows`; this gives the rows in both cases.
 */
export function returnedRows<T>(raw: unknown): T[] {
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') {
    return raw[0] as T[];
  }
  return raw as T[];
}
