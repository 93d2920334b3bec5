import pg, { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { MigrationClass } from './migration';

export interface SchemaDataSourceOptions {
  url: string;
  /** The one schema this service owns. */
  schema: string;
  migrations: MigrationClass[];
  /** Connection pool size (default 10). */
  poolSize?: number;
  /**
   * How long a query waits for a pooled connection (or for a new one to connect) before it fails instead of
   * waiting forever (default 10 s).
   */
  poolTimeoutMs?: number;
  applicationName?: string;
}

/** The PostgreSQL error codes (SQLSTATE) the services act on. */
const SQLSTATE = {
  UNIQUE_VIOLATION: '23505',
  SERIALIZATION_FAILURE: '40001',
  DEADLOCK_DETECTED: '40P01',
  DUPLICATE_DATABASE: '42P04',
  INVALID_CATALOG_NAME: '3D000',
} as const;

/** The SQLSTATE of a failed statement (TypeORM's QueryFailedError carries the driver's code), if it has one. */
function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether a statement failed on a unique index: the row it would add is there already. */
export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === SQLSTATE.UNIQUE_VIOLATION;
}

/**
 * Whether PostgreSQL aborted the transaction to settle a deadlock or a serialization conflict with another one:
 * nothing of it was stored, and running it again may succeed.
 */
export function isConflictAbort(err: unknown): boolean {
  const code = sqlState(err);
  return code === SQLSTATE.DEADLOCK_DETECTED || code === SQLSTATE.SERIALIZATION_FAILURE;
}

/**
 * Makes the current transaction commit without waiting for its WAL flush (`synchronous_commit` off for this
 * transaction alone). A PostgreSQL crash can then lose the last fraction of a second of such commits, each
 * whole and in order; other sessions see a commit as soon as it is made. For writes whose loss is harmless or
 * favours the customer, where a flush per commit would be the largest cost.
 */
export const COMMIT_WITHOUT_FLUSH_WAIT = `SELECT set_config('synchronous_commit', 'off', true)`;

/**
 * `COMMIT_WITHOUT_FLUSH_WAIT` for a statement of its own, as a CTE named `no_flush_wait`: `WITH ${NO_FLUSH_WAIT},
 * ...`. The statement must read from it (`FROM ..., no_flush_wait`), or PostgreSQL does not run it. Saves the
 * round trips of a transaction block.
 */
export const NO_FLUSH_WAIT = `no_flush_wait AS MATERIALIZED (${COMMIT_WITHOUT_FLUSH_WAIT})`;

/**
 * The parameters of a statement that takes many rows at once as one array per column
 * (`unnest($1::uuid[], $2::text[], ...)`): for each of `fields`, in order, that field of every row.
 */
export function columns<T, K extends keyof T>(rows: readonly T[], fields: readonly K[]): T[K][][] {
  return fields.map((field) => rows.map((row) => row[field]));
}

/** A statement run on every request, parsed and planned once per pooled connection (see `prepared`). */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const preparedNames = new Map<string, string>();

/**
 * Names a statement that is prepared (parsed and planned) once on each pooled connection and then only
 * executed: for the statements of every request. PostgreSQL spends more CPU planning a statement with a few
 * CTEs than running it (a statement given as plain text is planned on every call). Run it with `Sql`. Behind PgBouncer
 * in transaction mode this needs its `max_prepared_statements`.
 */
export function prepared(name: string, text: string): PreparedStatement {
  const known = preparedNames.get(name);
  if (known !== undefined && known !== text) throw new Error(`two statements are named ${name}`);
  preparedNames.set(name, text);
  return { name, text };
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
    if (sqlState(err) !== SQLSTATE.INVALID_CATALOG_NAME) throw err;
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
    // a duplicate database or, when both got past the check, a unique violation on pg_database's unique index.
    const code = sqlState(err);
    if (code !== SQLSTATE.DUPLICATE_DATABASE && code !== SQLSTATE.UNIQUE_VIOLATION) throw err;
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
    // The pg this module imports, rather than the one TypeORM would require by name at run time: in an app's
    // bundle (tools/dev/bundle.mjs) that would be a second copy, loaded module by module from node_modules.
    driver: pg,
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
    if (isConflictAbort(e)) return true;
    if (typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT)$/.test(code)) return true;
    if (typeof message === 'string' && TRANSIENT_MESSAGES.test(message)) return true;
    // TypeORM wraps driver errors (QueryFailedError keeps the driver's as driverError).
    e = (e as { driverError?: unknown; cause?: unknown }).driverError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}
