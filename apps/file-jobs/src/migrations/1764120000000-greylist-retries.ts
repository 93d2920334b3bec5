import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Greylisted addresses wait inside their job for a retry. A chunk with such addresses is `waiting`: its results
 * are stored and counted, except those of its waiting addresses, and it is answered (for the merge and the
 * job's end) once the last of them settles. Each waiting address is a row with the time its next retry is due;
 * the retry is claimed like a chunk (claim id and time, taken over when stale), so a retry waiting in a job
 * survives any process's restart.
 */
export class GreylistRetries1764120000000 implements MigrationInterface {
  name = 'GreylistRetries1764120000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE files.job_chunks DROP CONSTRAINT job_chunks_status_check,
        ADD CONSTRAINT job_chunks_status_check CHECK (status IN ('queued', 'published', 'waiting', 'done', 'failed'))`);
    // Addresses of the job waiting for a retry: not yet processed nor counted.
    await q.query(`ALTER TABLE files.jobs ADD COLUMN waiting_emails int NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE files.greylist_retries (
        job_id uuid NOT NULL REFERENCES files.jobs(id) ON DELETE CASCADE,
        chunk int NOT NULL,
        -- The address's place among its chunk's addresses (and results).
        position int NOT NULL,
        email text NOT NULL,
        -- Retries sent so far.
        attempts int NOT NULL DEFAULT 0,
        due_at timestamptz NOT NULL,
        -- The dispatch that sent the retry under way (one id per pass), and when; NULL while waiting.
        claim uuid,
        claimed_at timestamptz,
        PRIMARY KEY (job_id, chunk, position)
      )`);
    await q.query(`CREATE INDEX greylist_retries_due_idx ON files.greylist_retries (due_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE files.greylist_retries`);
    await q.query(`ALTER TABLE files.jobs DROP COLUMN waiting_emails`);
    await q.query(`
      ALTER TABLE files.job_chunks DROP CONSTRAINT job_chunks_status_check,
        ADD CONSTRAINT job_chunks_status_check CHECK (status IN ('queued', 'published', 'done', 'failed'))`);
  }
}
