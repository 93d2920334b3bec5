import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A job keeps the id of the request that created it: the work it causes later (chunks, settlement, its event)
 * carries that id, whichever replica does it and however long after.
 */
export class JobRequestId1764400000000 implements MigrationInterface {
  name = 'JobRequestId1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE files.jobs ADD COLUMN request_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE files.jobs DROP COLUMN request_id`);
  }
}
