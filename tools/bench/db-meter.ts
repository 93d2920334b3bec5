// What the benchmark's own database costs PostgreSQL during a phase: the CPU of the backends connected to it
// (the `postgres` CPU column counts every backend on the machine, other people's tests included) and its
// statistics (transactions, rows, scans, updates that were not HOT), each divided by the phase's operations.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { round } from './common';
import { cpuSeconds } from './load';

interface Sample {
  /** CPU seconds so far of each backend of the database (not this meter's own connection). */
  backends: Map<number, number>;
  database: Record<string, number>;
  tables: Map<string, Record<string, number>>;
  walBytes: number;
}

export interface DatabaseFigures {
  /** CPU of the database's own backends, in cores over the phase. */
  cores: number;
  /** Per operation: backend CPU in µs, and each counter of pg_stat_database and pg_stat_user_tables. */
  perOperation: Record<string, number>;
  /** WAL written by the whole cluster (everyone's databases) per operation, in bytes. */
  clusterWalBytesPerOperation: number;
}

const DATABASE_COUNTERS = [
  'xact_commit',
  'xact_rollback',
  'tup_returned',
  'tup_fetched',
  'tup_inserted',
  'tup_updated',
  'tup_deleted',
  'blks_hit',
  'blks_read',
];
const TABLE_COUNTERS = [
  'seq_scan',
  'seq_tup_read',
  'idx_scan',
  'n_tup_ins',
  'n_tup_upd',
  'n_tup_hot_upd',
  'n_tup_del',
  'autovacuum_count',
  'autoanalyze_count',
];

export class DatabaseMeter {
  private constructor(private readonly client: Client) {}

  static async open(url: string): Promise<DatabaseMeter> {
    const client = new Client({ connectionString: url, application_name: 'bench db meter' });
    await client.connect();
    return new DatabaseMeter(client);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }

  async sample(): Promise<Sample> {
    const pids = await this.client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    const backends = new Map(pids.rows.map((r) => [r.pid, cpuSeconds([r.pid])]));
    // Backends report their counters when idle, at most once a second: the caller waits that long first.
    await this.client.query('SELECT pg_stat_clear_snapshot()');
    const db = await this.client.query<Record<string, string>>(
      `SELECT ${DATABASE_COUNTERS.join(', ')}, pg_current_wal_lsn() - '0/0'::pg_lsn AS wal
         FROM pg_stat_database WHERE datname = current_database()`,
    );
    const tables = await this.client.query<Record<string, string>>(
      `SELECT schemaname || '.' || relname AS name, ${TABLE_COUNTERS.map((c) => `coalesce(${c}, 0) AS ${c}`).join(', ')}
         FROM pg_stat_user_tables`,
    );
    const row = db.rows[0] ?? {};
    return {
      backends,
      database: Object.fromEntries(DATABASE_COUNTERS.map((c) => [c, Number(row[c] ?? 0)])),
      tables: new Map(
        tables.rows.map((t) => [t.name!, Object.fromEntries(TABLE_COUNTERS.map((c) => [c, Number(t[c])]))]),
      ),
      walBytes: Number(row.wal ?? 0),
    };
  }

  /** Waits for the backends to report, samples again and divides what changed by `operations`. */
  async stop(before: Sample, seconds: number, operations: number): Promise<DatabaseFigures> {
    await sleep(1_100);
    const after = await this.sample();
    let cpu = 0;
    for (const [pid, secs] of after.backends) cpu += secs - (before.backends.get(pid) ?? 0);
    const per = (n: number) => round(n / Math.max(1, operations), 3);
    const perOperation: Record<string, number> = {
      backend_cpu_us: round((cpu * 1e6) / Math.max(1, operations), 0),
    };
    for (const c of DATABASE_COUNTERS) perOperation[c] = per(after.database[c]! - before.database[c]!);
    for (const [name, counters] of after.tables) {
      const was = before.tables.get(name);
      for (const c of TABLE_COUNTERS) {
        const diff = counters[c]! - (was?.[c] ?? 0);
        if (diff !== 0) perOperation[`${name}.${c}`] = per(diff);
      }
    }
    return {
      cores: round(cpu / seconds, 2),
      perOperation,
      clusterWalBytesPerOperation: per(after.walBytes - before.walBytes),
    };
  }
}
