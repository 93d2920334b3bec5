import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A job's addresses and results are kept per chunk instead of per address: a chunk row holds its addresses
 * (in order), which of them occur again further down the file, and, once verified, its results in the same
 * order. Creating a million-address job writes 2,000 rows instead of a million, applying a chunk's results
 * updates one row instead of 500, and the merge reads the chunks in order instead of looking every row's
 * address up. Addresses that fail syntax are not stored at all: their result follows from the cell.
 *
 * Results are stored as the JSON text file-jobs wrote (never queried into by PostgreSQL, so not validated or
 * built as a JSON value there).
 *
 * Existing jobs are carried over: their chunks get the addresses and results of their rows. Which addresses
 * repeat was not recorded before, so `repeated` stays NULL for them and their merge keeps every result at hand.
 */
export class ChunkStorage1763900000000 implements MigrationInterface {
  name = 'ChunkStorage1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE files.jobs ADD COLUMN chunk_size int NOT NULL DEFAULT 500`);
    await q.query(`
      ALTER TABLE files.job_chunks
        ADD COLUMN emails text[],
        ADD COLUMN repeated bytea,
        ADD COLUMN results text,
        ADD COLUMN credits_used int NOT NULL DEFAULT 0`);
    await q.query(`
      UPDATE files.job_chunks c
         SET emails = e.emails,
             results = CASE WHEN c.status IN ('done', 'failed') THEN e.results::text END,
             credits_used = CASE WHEN c.status IN ('done', 'failed') THEN e.used ELSE 0 END
        FROM (SELECT job_id, chunk, array_agg(email ORDER BY idx) AS emails,
                     json_agg(result ORDER BY idx) AS results,
                     COALESCE(sum((result->>'creditsUsed')::int), 0)::int AS used
                FROM files.job_emails WHERE chunk IS NOT NULL GROUP BY job_id, chunk) e
       WHERE e.job_id = c.job_id AND e.chunk = c.chunk`);
    await q.query(`UPDATE files.job_chunks SET emails = '{}' WHERE emails IS NULL`);
    await q.query(`ALTER TABLE files.job_chunks ALTER COLUMN emails SET NOT NULL`);
    await q.query(`
      UPDATE files.jobs j SET chunk_size = c.size
        FROM (SELECT job_id, max(size) AS size FROM files.job_chunks GROUP BY job_id) c
       WHERE c.job_id = j.id`);
    await q.query(`DROP TABLE files.job_emails`);
    // Chunk addresses and results are tens to hundreds of KiB each, so they are compressed out of line: with
    // lz4 where the server has it (much cheaper to compress than the default pglz, for a little more space).
    const [{ lz4 }] = (await q.query(
      `SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`,
    )) as Array<{ lz4: boolean }>;
    if (lz4) {
      await q.query(
        `ALTER TABLE files.job_chunks ALTER COLUMN emails SET COMPRESSION lz4, ALTER COLUMN results SET COMPRESSION lz4`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files.job_emails (
        job_id uuid NOT NULL REFERENCES files.jobs(id) ON DELETE CASCADE,
        idx int NOT NULL,
        email text NOT NULL,
        chunk int,
        result jsonb,
        PRIMARY KEY (job_id, idx)
      )`);
    await q.query(`CREATE UNIQUE INDEX job_emails_email_idx ON files.job_emails (job_id, email)`);
    await q.query(`CREATE INDEX job_emails_chunk_idx ON files.job_emails (job_id, chunk)`);
    // Only the verifiable addresses come back: rows of cells that failed syntax were never stored per chunk.
    await q.query(`
      INSERT INTO files.job_emails (job_id, idx, email, chunk, result)
      SELECT c.job_id, (c.chunk * j.chunk_size + a.n - 1)::int, a.email, c.chunk, (c.results::jsonb -> (a.n - 1)::int)
        FROM files.job_chunks c
        JOIN files.jobs j ON j.id = c.job_id
        CROSS JOIN LATERAL unnest(c.emails) WITH ORDINALITY AS a(email, n)`);
    await q.query(
      `ALTER TABLE files.job_chunks DROP COLUMN emails, DROP COLUMN repeated, DROP COLUMN results, DROP COLUMN credits_used`,
    );
    await q.query(`ALTER TABLE files.jobs DROP COLUMN chunk_size`);
  }
}
