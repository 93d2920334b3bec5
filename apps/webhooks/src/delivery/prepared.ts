import type { DataSource } from '@emailverify/persistence';
import type { Pool, QueryResultRow } from 'pg';

/**
 * A statement the dispatcher runs for every batch of deliveries (making, claiming, recording them), run as a
 * named prepared statement: each pooled connection parses it once, and PostgreSQL can keep its plan instead of
 * planning it again at every run. Planning these statements (CTEs over `unnest` of arrays, joins, locks) took
 * about a millisecond each time, as much as storing a batch of a few dozen attempts.
 */
export interface PreparedStatement {
  /** Unique per text: a connection that prepared one text under a name cannot take another under it. */
  name: string;
  text: string;
}

/**
 * Runs a prepared statement on the data source's pool and returns its rows. A connection prepares it the first
 * time it runs it; errors are PostgreSQL's own (with their SQLSTATE `code`), as from `DataSource.query`.
 */
export async function queryPrepared<T extends QueryResultRow>(
  db: DataSource,
  statement: PreparedStatement,
  values: unknown[],
): Promise<T[]> {
  const pool = (db.driver as unknown as { master: Pool }).master;
  const result = await pool.query<T>({ name: statement.name, text: statement.text, values });
  return result.rows;
}
