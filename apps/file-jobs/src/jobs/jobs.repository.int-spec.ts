import { randomUUID } from 'node:crypto';
import type { DataSource } from '@emailverify/persistence';
import { openTestDatabase } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesMigrations } from '../migrations';
import { RESULTS_LOOKUP_SQL } from './jobs.repository';

describe('merge lookups (real PostgreSQL)', () => {
  const jobId = randomUUID();
  let db: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await openTestDatabase('files', filesMigrations));
    await db.query(
      `INSERT INTO files.jobs (id, account_id, file_name, file_size, format, status, email_column, column_index, has_header,
         headers, check_smtp, preserve_original, upload_object, total_rows, estimated_count, unique_emails, billable_emails,
         total_chunks, reservation_key)
       VALUES ($1, $2, 'big.csv', 1, 'csv', 'merging', 'email', 0, true, '["email"]', false, true, 'u', 0, 0, 0, 0, 0, 'k')`,
      [jobId, randomUUID()],
    );
    // A large job whose rows were just written and never analysed: the case that made merging quadratic.
    await db.query(
      `INSERT INTO files.job_emails (job_id, idx, email, chunk, result)
       SELECT $1, g, 'u' || g || '@d.test', g / 500, '{"status":"valid"}'::jsonb FROM generate_series(0, 299999) g`,
      [jobId],
    );
  });
  afterAll(async () => drop?.());

  it('looks each address of a batch up on the (job_id, email) index', async () => {
    const keys = Array.from({ length: 2000 }, (_, i) => `u${100_000 + i}@d.test`);
    const [{ 'QUERY PLAN': plan }] = (await db.query(`EXPLAIN (FORMAT JSON) ${RESULTS_LOOKUP_SQL}`, [
      jobId,
      keys,
    ])) as Array<{
      'QUERY PLAN': unknown;
    }>;
    const text = JSON.stringify(plan);
    expect(text).toContain('job_emails_email_idx');
    expect(text).not.toContain('Seq Scan');
    const rows = (await db.query(RESULTS_LOOKUP_SQL, [jobId, keys])) as Array<{ email: string }>;
    expect(rows).toHaveLength(2000);
  });
});
