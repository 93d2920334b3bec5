import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A migration class, as a data source is given its migrations. */
export type MigrationClass = new () => MigrationInterface;

/**
 * A migration of reviewed SQL only: `up` runs its statements in order, `down` its own, each in the
 * migration's transaction. `name` is what the schema's `migrations` table records: a name ending in the
 * migration's 13-digit timestamp, which orders it (`CreditsInit1763800000000`).
 */
export function sqlMigration(
  name: string,
  statements: { up: readonly string[]; down: readonly string[] },
): MigrationClass {
  if (!/\d{13}$/.test(name)) throw new Error(`migration ${name} does not end in a 13-digit timestamp`);
  return class implements MigrationInterface {
    readonly name = name;

    async up(q: QueryRunner): Promise<void> {
      for (const sql of statements.up) await q.query(sql);
    }

    async down(q: QueryRunner): Promise<void> {
      for (const sql of statements.down) await q.query(sql);
    }
  };
}
