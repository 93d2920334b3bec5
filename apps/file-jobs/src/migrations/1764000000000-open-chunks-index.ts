import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chunks of a job that are still queued or in flight, by job, status and number. A window refill counts
 * the chunks in flight and takes the next queued ones; through the primary key alone each refill read every
 * chunk row of the job (2,000 for a million addresses, the answered ones first), so a large job's refills cost
 * PostgreSQL time in proportion to its size. Answered chunks leave this index.
 */
export class OpenChunksIndex1764000000000 implements MigrationInterface {
  name = 'OpenChunksIndex1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX job_chunks_open_idx ON files.job_chunks (job_id, status, chunk) WHERE status IN ('queued', 'published')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX files.job_chunks_open_idx`);
  }
}
