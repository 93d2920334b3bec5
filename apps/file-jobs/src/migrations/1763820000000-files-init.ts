import { sqlMigration } from '@emailverify/persistence';

/**
 * File jobs, their chunks and the outbox of their events. The uploaded file itself stays in the object store;
 * the result file is built from it and the chunk rows.
 */
export const FilesInit1763820000000 = sqlMigration('FilesInit1763820000000', {
  up: [
    `
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
        enrich boolean NOT NULL DEFAULT false,
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
        -- The request that created the job (X-Request-Id): the work it causes later carries it.
        request_id text,
        settled boolean NOT NULL DEFAULT false,
        error_code text,
        error_message text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        -- Addresses per chunk when the job was made: the n-th verifiable address is in chunk n / chunk_size.
        chunk_size int NOT NULL DEFAULT 500,
        -- When retention deleted the job's files (FILE_RETENTION_DAYS after it ended); its record and counts stay.
        files_deleted_at timestamptz,
        -- The merge writing the job's result file (a random id per merge) and until when it holds the job unless
        -- it renews: a lease rather than a lock held on a connection, so a merge needs no connection of its own
        -- for its whole length, and one whose process died is taken over once its lease has run out.
        merge_owner uuid,
        merge_lease_until timestamptz,
        -- Addresses waiting inside the job for a greylisting retry: not yet processed nor counted.
        waiting_emails int NOT NULL DEFAULT 0
      )`,
    `CREATE INDEX jobs_account_idx ON files.jobs (account_id, created_at DESC)`,
    `CREATE INDEX jobs_active_idx ON files.jobs (status) WHERE status IN ('pending','running','processing','merging')`,
    // The retention sweep: ended jobs whose files are still kept, by the time they ended.
    `CREATE INDEX jobs_retention_idx ON files.jobs (completed_at)
        WHERE files_deleted_at IS NULL AND status IN ('completed','completed_with_warning','failed','cancelled')`,
    // A job's addresses and results are kept per chunk, not per address: a chunk row holds its addresses (in
    // order, normalised), which of them occur again further down the file, and, once verified, its results in
    // the same order. Creating a million-address job writes 2,000 rows, applying a chunk's results updates one,
    // and the merge reads the chunks in order. Addresses that fail syntax are not stored: their result follows
    // from the cell. Results are the JSON text file-jobs wrote (never queried into by PostgreSQL, so neither
    // validated nor built as a JSON value there).
    `
      CREATE TABLE files.job_chunks (
        job_id uuid NOT NULL REFERENCES files.jobs(id) ON DELETE CASCADE,
        chunk int NOT NULL,
        size int NOT NULL,
        -- 'waiting': applied, but some of its addresses wait for a greylisting retry; answered once they settle.
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'published', 'waiting', 'done', 'failed')),
        published_at timestamptz,
        done_at timestamptz,
        emails text[] NOT NULL,
        repeated bytea,
        results text,
        credits_used int NOT NULL DEFAULT 0,
        PRIMARY KEY (job_id, chunk)
      )`,
    // Chunk addresses and results are tens to hundreds of KiB each, so they are compressed out of line: with
    // lz4 where the server has it (much cheaper to compress than the default pglz, for a little more space).
    `
      DO $$ BEGIN
        IF EXISTS (SELECT FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)) THEN
          ALTER TABLE files.job_chunks ALTER COLUMN emails SET COMPRESSION lz4, ALTER COLUMN results SET COMPRESSION lz4;
        END IF;
      END $$`,
    // The chunks of a job still queued or in flight. A window refill counts the chunks in flight and takes the
    // next queued ones; through the primary key alone each refill would read every chunk row of the job (2,000
    // for a million addresses, the answered ones first). Answered chunks leave this index.
    `CREATE INDEX job_chunks_open_idx ON files.job_chunks (job_id, status, chunk) WHERE status IN ('queued', 'published')`,
    // Greylisted addresses waiting inside their job for a retry (GREYLIST_RETRY_DELAYS): one row each, due at a
    // time, claimed like a chunk (claim id and time, taken over when stale), so a retry waiting in a job survives
    // any process's restart. The chunk's stored results hold the address's greylisted answer meanwhile.
    `
      CREATE TABLE files.greylist_retries (
        job_id uuid NOT NULL REFERENCES files.jobs(id) ON DELETE CASCADE,
        chunk int NOT NULL,
        -- The address's place among its chunk's addresses (and results).
        position int NOT NULL,
        email text NOT NULL,
        -- Retries sent so far.
        attempts int NOT NULL DEFAULT 0,
        due_at timestamptz NOT NULL,
        -- The dispatch that sent the retry under way, and when; NULL while the address waits.
        claim uuid,
        claimed_at timestamptz,
        PRIMARY KEY (job_id, chunk, position)
      )`,
    `CREATE INDEX greylist_retries_due_idx ON files.greylist_retries (due_at)`,
    // Events a job's state change owes the EVENTS stream: written in the statement that changes the state,
    // removed once the event is published, republished by recovery when a process died in between.
    `
      CREATE TABLE files.event_outbox (
        job_id uuid NOT NULL,
        event text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job_id, event)
      )`,
  ],
  down: [`DROP TABLE files.event_outbox, files.greylist_retries, files.job_chunks, files.jobs`],
});
