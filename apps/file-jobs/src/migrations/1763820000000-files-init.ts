import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * File jobs, their unique addresses (with each address's result once verified) and their chunks. The
 * uploaded file itself stays in the object store; the result file is built from it and these rows.
 */
export class FilesInit1763820000000 implements MigrationInterface {
  name = 'FilesInit1763820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files.jobs (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL,
        file_name text NOT NULL,
        file_size bigint NOT NULL,
        format text NOT NULL,
        status text NOT NULL CHECK (status IN ('preparing','pending','running','processing','merging','paused',
                                                'completed','completed_with_warning','failed','cancelled')),
        email_column text NOT NULL,
        column_index int NOT NULL,
        has_header boolean NOT NULL,
        headers jsonb NOT NULL,
        check_smtp boolean NOT NULL,
        preserve_original boolean NOT NULL,
        upload_object text NOT NULL,
        result_object text,
        total_rows int NOT NULL,
        estimated_count int NOT NULL,
        unique_emails int NOT NULL,
        billable_emails int NOT NULL,
        total_chunks int NOT NULL,
        completed_chunks int NOT NULL DEFAULT 0,
        failed_chunks int NOT NULL DEFAULT 0,
        processed_emails int NOT NULL DEFAULT 0,
        valid_emails int NOT NULL DEFAULT 0,
        invalid_emails int NOT NULL DEFAULT 0,
        unknown_emails int NOT NULL DEFAULT 0,
        risky_emails int NOT NULL DEFAULT 0,
        disposable_emails int NOT NULL DEFAULT 0,
        catchall_emails int NOT NULL DEFAULT 0,
        role_emails int NOT NULL DEFAULT 0,
        credits_used int NOT NULL DEFAULT 0,
        reservation_key text NOT NULL,
        settled boolean NOT NULL DEFAULT false,
        error_code text,
        error_message text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX jobs_account_idx ON files.jobs (account_id, created_at DESC)`);
    await q.query(
      `CREATE INDEX jobs_active_idx ON files.jobs (status) WHERE status IN ('pending','running','processing','merging')`,
    );
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
    await q.query(`
      CREATE TABLE files.job_chunks (
        job_id uuid NOT NULL REFERENCES files.jobs(id) ON DELETE CASCADE,
        chunk int NOT NULL,
        size int NOT NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'published', 'done', 'failed')),
        published_at timestamptz,
        done_at timestamptz,
        PRIMARY KEY (job_id, chunk)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE files.job_chunks, files.job_emails, files.jobs`);
  }
}
