import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The result cache is written once for every address verified (a million rows for a million-address file),
 * and everything in it can be verified again, so it is made cheap to write:
 * - UNLOGGED: no write-ahead log. After a crash of PostgreSQL (not a clean restart) the table comes back
 *   empty, and standbys do not have it; either only means verifying again. Nothing is billed from it twice: a
 *   file job's chunks are charged once by file-jobs whatever the verifier finds here.
 * - `result` as text (JSON written by the verifier) rather than jsonb: it is only ever read back whole, never
 *   queried into, and building (or even validating) JSON values costs PostgreSQL more than storing the row.
 * - the address compared byte by byte (COLLATE "C"): it is a key, never sorted for people, and the database's
 *   default collation would make every comparison in the primary key a locale-aware one.
 * - expiry indexed with BRIN instead of a B-tree: rows arrive in expiry order, so block ranges summarise it
 *   well enough for the periodic purge, at almost no cost per insert.
 */
export class LeanCache1763900000000 implements MigrationInterface {
  name = 'LeanCache1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE verifier.results SET UNLOGGED`);
    await q.query(`ALTER TABLE verifier.results ALTER COLUMN result TYPE text USING result::text`);
    await q.query(`ALTER TABLE verifier.results ALTER COLUMN email TYPE text COLLATE "C"`);
    await q.query(`DROP INDEX verifier.results_expires_idx`);
    await q.query(`CREATE INDEX results_expires_brin ON verifier.results USING brin (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX verifier.results_expires_brin`);
    await q.query(`CREATE INDEX results_expires_idx ON verifier.results (expires_at)`);
    await q.query(`ALTER TABLE verifier.results ALTER COLUMN email TYPE text COLLATE "default"`);
    await q.query(`ALTER TABLE verifier.results ALTER COLUMN result TYPE jsonb USING result::jsonb`);
    await q.query(`ALTER TABLE verifier.results SET LOGGED`);
  }
}
