import type { QueryResultRow } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import { COMMIT_WITHOUT_FLUSH_WAIT, type PreparedStatement } from './database';

/** A statement: plain text (parsed on every call) or a named statement prepared once per connection. */
export type Statement = string | PreparedStatement;

/** The driver's answer to one statement, in the shape `pg` gives it whatever the statement was. */
interface DriverResult<T> {
  rows: T[];
  rowCount: number | null;
}

/** A `pg` connection as TypeORM's query runner hands it out (`QueryRunner.connect()`). */
interface DriverConnection {
  query<T extends QueryResultRow>(config: {
    text: string;
    values: unknown[];
    name?: string;
  }): Promise<DriverResult<T>>;
}

/** What a repository runs statements on: the whole pool, or one transaction. */
export interface Queryable {
  /** The statement's rows (RETURNING rows too), in order. */
  rows<T extends QueryResultRow>(statement: Statement, values?: readonly unknown[]): Promise<T[]>;
  /** The statement's first row, if any. */
  one<T extends QueryResultRow>(statement: Statement, values?: readonly unknown[]): Promise<T | undefined>;
  /** How many rows the statement inserted, updated or deleted (or returned, for a SELECT). */
  affected(statement: Statement, values?: readonly unknown[]): Promise<number>;
}

export interface TransactionOptions {
  /**
   * Commit without waiting for the WAL flush (`COMMIT_WITHOUT_FLUSH_WAIT`): for writes whose loss in a crash is
   * harmless or favours the customer.
   */
  withoutFlushWait?: boolean;
}

/**
 * The services' one way to run SQL: TypeORM's data source keeps the pool and the migrations, and this gives rows
 * and affected counts the same way for every statement (TypeORM's `query` answers UPDATE ... RETURNING with a
 * `[rows, count]` pair and everything else with rows), named prepared statements, and transactions.
 */
export class Sql implements Queryable {
  constructor(private readonly db: DataSource) {}

  rows<T extends QueryResultRow>(statement: Statement, values: readonly unknown[] = []): Promise<T[]> {
    return this.run((c) => execute<T>(c, statement, values)).then((r) => r.rows);
  }

  one<T extends QueryResultRow>(
    statement: Statement,
    values: readonly unknown[] = [],
  ): Promise<T | undefined> {
    return this.rows<T>(statement, values).then((rows) => rows[0]);
  }

  affected(statement: Statement, values: readonly unknown[] = []): Promise<number> {
    return this.run((c) => execute(c, statement, values)).then((r) => r.rowCount ?? 0);
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it throws
   * (the error is passed on).
   */
  async transaction<T>(work: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const runner = this.db.createQueryRunner();
    try {
      const connection = (await runner.connect()) as DriverConnection;
      await runner.startTransaction();
      try {
        if (options.withoutFlushWait) {
          await connection.query({ text: COMMIT_WITHOUT_FLUSH_WAIT, values: [] });
        }
        const result = await work(new TransactionQueries(connection));
        await runner.commitTransaction();
        return result;
      } catch (err) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        throw err;
      }
    } finally {
      await release(runner);
    }
  }

  private async run<R>(work: (connection: DriverConnection) => Promise<R>): Promise<R> {
    const runner = this.db.createQueryRunner();
    try {
      return await work((await runner.connect()) as DriverConnection);
    } finally {
      await release(runner);
    }
  }
}

/** The statements of one transaction, all on its connection. */
class TransactionQueries implements Queryable {
  constructor(private readonly connection: DriverConnection) {}

  async rows<T extends QueryResultRow>(statement: Statement, values: readonly unknown[] = []): Promise<T[]> {
    return (await execute<T>(this.connection, statement, values)).rows;
  }

  async one<T extends QueryResultRow>(
    statement: Statement,
    values: readonly unknown[] = [],
  ): Promise<T | undefined> {
    return (await this.rows<T>(statement, values))[0];
  }

  async affected(statement: Statement, values: readonly unknown[] = []): Promise<number> {
    return (await execute(this.connection, statement, values)).rowCount ?? 0;
  }
}

function execute<T extends QueryResultRow>(
  connection: DriverConnection,
  statement: Statement,
  values: readonly unknown[],
): Promise<DriverResult<T>> {
  return typeof statement === 'string'
    ? connection.query<T>({ text: statement, values: [...values] })
    : connection.query<T>({ name: statement.name, text: statement.text, values: [...values] });
}

async function release(runner: QueryRunner): Promise<void> {
  if (!runner.isReleased) await runner.release();
}
