import { randomUUID } from 'node:crypto';
import type { AccountId, FileJobListRequest } from '@emailverify/contracts';
import type { MessageBus } from '@emailverify/messaging';
import { type DataSource, Sql } from '@emailverify/persistence';
import { openTestDatabase } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesMigrations } from '../migrations';
import type { JobFiles } from './job-files';
import type { JobMerger } from './job-merger';
import { makeJobRow } from './job-row.fixture';
import type { JobRunner } from './job-runner';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import type { ResultWriter } from './result-writer';

describe('the job list (real PostgreSQL)', () => {
  let db: DataSource;
  let sql: Sql;
  let drop: () => Promise<void>;
  let repo: JobsRepository;
  let jobs: JobsService;

  beforeAll(async () => {
    ({ db, drop } = await openTestDatabase('files', filesMigrations));
    sql = new Sql(db);
    repo = new JobsRepository(sql);
    // Listing reads the repository alone.
    jobs = new JobsService(
      repo,
      {} as JobRunner,
      {} as JobMerger,
      {} as Pick<MessageBus, 'publish'>,
      {} as JobFiles,
      {} as ResultWriter,
    );
  });
  afterAll(async () => drop?.());

  /** A job of `account` created at `createdAt` (PostgreSQL text, to the microsecond). */
  async function insert(account: AccountId, createdAt: string, status = 'pending'): Promise<string> {
    const id = randomUUID();
    const row = makeJobRow({ id, account_id: account, reservation_key: `file:${id}` });
    await repo.transaction((tx) => tx.insertJob({ ...row, file_size: 100 }));
    await sql.affected(`UPDATE files.jobs SET created_at = $2::timestamptz, status = $3 WHERE id = $1`, [
      id,
      createdAt,
      status,
    ]);
    return id;
  }

  async function pageThrough(request: Omit<FileJobListRequest, 'cursor'>): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await jobs.list({ ...request, ...(cursor ? { cursor } : {}) });
      expect(page.jobs.length).toBeLessThanOrEqual(request.limit);
      ids.push(...page.jobs.map((job) => job.jobId));
      cursor = page.nextCursor;
    } while (cursor);
    return ids;
  }

  it('pages through ties and microseconds alike: every job once, by (created_at desc, id desc)', async () => {
    const account = randomUUID() as AccountId;
    const other = randomUUID() as AccountId;
    // Within one millisecond: ten jobs in the same microsecond, and others a microsecond apart, which a cursor
    // kept to the millisecond (as a JavaScript Date is) would skip or repeat.
    for (let i = 0; i < 10; i++) await insert(account, '2026-11-01 10:00:00.123456+00');
    for (let i = 0; i < 8; i++) await insert(account, `2026-11-01 10:00:00.12345${i}+00`, 'completed');
    for (let i = 0; i < 5; i++) await insert(account, `2026-11-0${i + 2} 10:00:00+00`);
    for (let i = 0; i < 3; i++) await insert(other, '2026-11-01 10:00:00.123456+00');
    const expected = (
      await sql.rows<{ id: string }>(
        `SELECT id FROM files.jobs WHERE account_id = $1 ORDER BY created_at DESC, id DESC`,
        [account],
      )
    ).map((row) => row.id);
    expect(expected).toHaveLength(23);

    for (const limit of [1, 4, 7, 23, 100]) {
      expect(await pageThrough({ accountId: account, limit })).toEqual(expected);
    }
    const completed = await pageThrough({ accountId: account, limit: 3, statuses: ['completed'] });
    expect(completed).toHaveLength(8);
    expect(completed).toEqual(expected.filter((id) => completed.includes(id)));
    expect(await pageThrough({ accountId: account, limit: 5, statuses: ['failed'] })).toEqual([]);
    expect(await pageThrough({ accountId: other, limit: 2 })).toHaveLength(3);
  });

  it('says on the last page that none follows, and on a full one that one does', async () => {
    const account = randomUUID() as AccountId;
    for (let i = 0; i < 4; i++) await insert(account, `2026-10-0${i + 1} 00:00:00+00`);
    const full = await jobs.list({ accountId: account, limit: 2 });
    expect(full.nextCursor).toEqual(expect.any(String));
    const last = await jobs.list({ accountId: account, limit: 2, cursor: full.nextCursor! });
    expect(last.jobs).toHaveLength(2);
    expect(last.nextCursor).toBeNull();
    expect((await jobs.list({ accountId: account, limit: 4 })).nextCursor).toBeNull();
  });

  it('serves a page from the list index', async () => {
    const plan = await sql.rows<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM files.jobs WHERE account_id = $1
        AND (created_at, id) < ('2026-11-01 10:00:00.123456+00'::timestamptz, $2::uuid)
        ORDER BY created_at DESC, id DESC LIMIT 21`,
      [randomUUID(), randomUUID()],
    );
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('jobs_account_list_idx');
  });
});
