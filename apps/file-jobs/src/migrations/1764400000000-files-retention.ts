import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention: a job's uploaded and result files (and the addresses its chunks keep) are deleted some days after
 * it ended, while its record and counts stay; `files_deleted_at` says when, so downloads can tell why the file
 * is gone. The sweep finds ended jobs whose files are still kept by their completion time.
 */
export class FilesRetention1764400000000 implements MigrationInterface {
  name = 'FilesRetention1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE files.jobs ADD COLUMN files_deleted_at timestamptz`);
    await q.query(
      `CREATE INDEX jobs_retention_idx ON files.jobs (completed_at)
        WHERE files_deleted_at IS NULL AND status IN ('completed','completed_with_warning','failed','cancelled')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX files.jobs_retention_idx`);
    await q.query(`ALTER TABLE files.jobs DROP COLUMN files_deleted_at`);
  }
}
