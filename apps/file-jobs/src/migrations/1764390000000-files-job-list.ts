import { sqlMigration } from '@emailverify/persistence';

/**
 * The job list (GET /v1/verify/file) pages an account's jobs by (created_at desc, id desc): the id breaks ties
 * between jobs created in the same microsecond, so the index holds it too and a page is one index range. It
 * replaces jobs_account_idx, whose every use it serves.
 */
export const FilesJobList1764390000000 = sqlMigration('FilesJobList1764390000000', {
  up: [
    `CREATE INDEX jobs_account_list_idx ON files.jobs (account_id, created_at DESC, id DESC)`,
    `DROP INDEX files.jobs_account_idx`,
  ],
  down: [
    `CREATE INDEX jobs_account_idx ON files.jobs (account_id, created_at DESC)`,
    `DROP INDEX files.jobs_account_list_idx`,
  ],
});
