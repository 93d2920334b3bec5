import { type Account, eventually, MailWorld, TestSuite } from '@emailverify/testing';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// GET /v1/verify/file (the account's jobs, a page at a time) and GET /v1/verify/file/{id}/results?partial=true
// (the rows verified so far of a job under way), in both response styles.

const STYLES = ['current', 'legacy'] as const;
type Style = (typeof STYLES)[number];

function parseCsv(text: string): string[][] {
  return Papa.parse<string[]>(text.trimEnd(), { skipEmptyLines: false }).data;
}

describe('file jobs: the job list and partial results', () => {
  let world: MailWorld;
  let suite: TestSuite;

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('files.test', {
        mx: [{ priority: 10, host: 'mx.files.test', smtp: { mailboxes: ['jane', 'bob', 'ann'] } }],
      })
      .domain('slow.test', {
        mx: [{ priority: 10, host: 'mx.slow.test', smtp: { catchAll: true, delayMs: 300 } }],
      })
      .domain('nx.test', { nxdomain: true });
    suite = await TestSuite.start({
      world,
      env: {
        SMTP_MAX_CONCURRENCY_PER_MX: '50',
        // 250 jobs are made in one go, and paged through: more than the 300 file requests a minute allowed.
        RATE_LIMIT_FILE: '100000',
        // Small chunks and a small window keep a job under way long enough to read it part-way.
        FILE_CHUNK_SIZE: '5',
        FILE_CHUNKS_IN_FLIGHT: '2',
      },
    });
  });
  afterAll(async () => suite?.stop());

  const list = (account: Account, query = '', style?: Style) =>
    suite.call(`/v1/verify/file${query}`, { key: account.apiKey, style });
  /** The page's body: `data` in the current style, the body itself in the legacy one. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary reply shapes
  const pageOf = (style: Style, res: { json: any }) => (style === 'current' ? res.json.data : res.json);
  const upload = async (
    account: Account,
    name: string,
    content: string,
    fields: Record<string, string> = {},
  ) => {
    const res = await suite.upload({ key: account.apiKey, file: { name, content }, fields });
    expect(res.status).toBe(200);
    return res.json.data.task_id as string;
  };

  it('pages through 250 jobs newest first, each once, while more are created meanwhile', async () => {
    const account = await suite.createAccount({ credits: 10_000 });
    const made: string[] = [];
    for (let i = 0; i < 250; i += 25) {
      const batch = Array.from({ length: 25 }, (_, j) =>
        upload(account, `job-${i + j}.txt`, `jane@files.test\n`),
      );
      made.push(...(await Promise.all(batch)));
    }
    // Jobs made in the same microsecond are ordered by id: the order is the database's, whatever the clock did.
    const expected = (
      await suite.sql<{ id: string }>(
        `SELECT id FROM files.jobs WHERE account_id = $1 ORDER BY created_at DESC, id DESC`,
        [account.accountId],
      )
    ).map((row) => row.id);
    expect(new Set(expected)).toEqual(new Set(made));

    const listed: string[] = [];
    const createdWhilePaging: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; ; page++) {
      const style = STYLES[page % 2]!;
      const res = await list(account, `?limit=7${cursor ? `&cursor=${cursor}` : ''}`, style);
      expect(res.status).toBe(200);
      const body = pageOf(style, res);
      expect(body.jobs.length).toBeLessThanOrEqual(7);
      listed.push(
        ...body.jobs.map((job: Record<string, string>) => job[style === 'current' ? 'task_id' : 'job_id']),
      );
      cursor = body.next_cursor;
      if (cursor === null) break;
      // Newer jobs go to the top of the list, never into the pages still to come.
      if (page % 5 === 1)
        createdWhilePaging.push(await upload(account, `late-${page}.txt`, 'bob@files.test\n'));
    }
    expect(createdWhilePaging.length).toBeGreaterThan(0);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual(expected);

    // The first page now starts with the jobs made while paging, the newest first.
    const first = await list(account, `?limit=${createdWhilePaging.length}`);
    expect(first.json.data.jobs.map((job: { task_id: string }) => job.task_id)).toEqual(
      [...createdWhilePaging].reverse(),
    );
  });

  it('lists the fields of each job in both styles, filters by status, and keeps accounts apart', async () => {
    const account = await suite.createAccount({ credits: 1_000 });
    const stranger = await suite.createAccount({ credits: 1_000 });
    // Addresses no other test verifies, so neither result comes free from the cache.
    const done = await upload(account, 'done.csv', 'email\nann@files.test\nghost@nx.test\n');
    await suite.finishedJob(done, account.apiKey);
    const slow = await upload(
      account,
      'slow.txt',
      Array.from({ length: 30 }, (_, i) => `p${i}@slow.test`).join('\n'),
      { check_smtp: 'true' },
    );
    const paused = await suite.call(`/v1/verify/file/${slow}/pause`, { key: account.apiKey, method: 'POST' });
    expect(paused.json.data.status).toBe('paused');
    await upload(stranger, 'theirs.txt', 'bob@files.test\n');

    const current = await list(account);
    expect(current.json.data.next_cursor).toBeNull();
    expect(current.json.data.jobs).toEqual([
      {
        task_id: slow,
        file_name: 'slow.txt',
        status: 'paused',
        progress: expect.any(Number),
        total_emails: 30,
        processed_emails: expect.any(Number),
        valid_emails: expect.any(Number),
        invalid_emails: 0,
        unknown_emails: expect.any(Number),
        role_emails: expect.any(Number),
        catchall_emails: expect.any(Number),
        risky_emails: 0,
        disposable_emails: 0,
        // Settled when the job ends.
        credits_used: null,
        created_at: expect.any(String),
        completed_at: null,
        files_deleted_at: null,
      },
      {
        task_id: done,
        file_name: 'done.csv',
        status: 'completed',
        progress: 100,
        total_emails: 2,
        processed_emails: 2,
        valid_emails: 1,
        invalid_emails: 1,
        unknown_emails: 0,
        role_emails: 0,
        catchall_emails: 0,
        risky_emails: 0,
        disposable_emails: 0,
        credits_used: 2,
        created_at: expect.any(String),
        completed_at: expect.any(String),
        files_deleted_at: null,
      },
    ]);
    const legacy = await list(account, '', 'legacy');
    expect(legacy.json).toEqual({
      jobs: [
        expect.objectContaining({ job_id: slow, status: 'paused', total_emails: 30, files_deleted_at: null }),
        {
          job_id: done,
          file_name: 'done.csv',
          status: 'completed',
          total_emails: 2,
          valid_emails: 1,
          invalid_emails: 1,
          unknown_emails: 0,
          role_emails: 0,
          catchall_emails: 0,
          risky_emails: 0,
          disposable_emails: 0,
          credits_used: 2,
          progress_percent: 100,
          created_at: current.json.data.jobs[1].created_at,
          completed_at: current.json.data.jobs[1].completed_at,
          files_deleted_at: null,
        },
      ],
      next_cursor: null,
    });

    const ids = async (query: string) =>
      (await list(account, query)).json.data.jobs.map((job: { task_id: string }) => job.task_id);
    expect(await ids('?status=paused')).toEqual([slow]);
    expect(await ids('?status=completed,completed_with_warning')).toEqual([done]);
    expect(await ids('?status=failed')).toEqual([]);
    expect((await list(stranger)).json.data.jobs).toHaveLength(1);

    // Retention deleting the files keeps the job listed, saying when; a deleted job is gone from the list.
    await suite.sql(`UPDATE files.jobs SET files_deleted_at = now(), result_object = NULL WHERE id = $1`, [
      done,
    ]);
    const expired = (await list(account, '?status=completed')).json.data.jobs[0];
    expect(expired).toMatchObject({ task_id: done, files_deleted_at: expect.any(String) });
    const removed = await suite.call(`/v1/verify/file/${slow}`, { key: account.apiKey, method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(await ids('')).toEqual([done]);
  });

  it.each(STYLES)(
    'refuses a bad query with 400 INVALID_REQUEST naming the parameter (%s style)',
    async (style) => {
      const account = await suite.createAccount({ credits: 10 });
      const cases: Array<[string, string]> = [
        ['limit', '?limit=0'],
        ['limit', '?limit=101'],
        ['limit', '?limit=abc'],
        ['status', '?status=finished'],
        ['status', '?status=completed,,failed'],
        ['cursor', '?cursor=***'],
        // Well-formed base64url whose contents are not a cursor: file-jobs refuses it.
        ['cursor', `?cursor=${Buffer.from('2026-13-01T00:00:00.000000Z 1 OR 1=1').toString('base64url')}`],
        ['cursor', `?cursor=${Buffer.from('hello').toString('base64url')}`],
      ];
      for (const [field, query] of cases) {
        const res = await list(account, query, style);
        expect(res.status, query).toBe(400);
        const error = res.json.error;
        expect(error.code, query).toBe('INVALID_REQUEST');
        expect(error.message, query).toContain(field);
        if (style === 'current') expect(res.json).toMatchObject({ success: false, code: '4000' });
        else {
          expect(Object.keys(res.json)).toEqual(['error']);
          expect(error.details, query).toMatchObject({ field });
        }
      }
    },
  );

  it('gives the rows verified so far of a running job: a prefix of the final file, with the same filters', async () => {
    const account = await suite.createAccount({ credits: 1_000 });
    // Catch-all and non-existent domains in turn, a repeat and a bad cell: statuses to filter on, rows that
    // need no verification, and a result reused further down.
    const rows = ['email'];
    for (let i = 0; i < 60; i++) rows.push(i % 4 === 3 ? `nobody${i}@nx.test` : `user${i}@slow.test`);
    rows.splice(8, 0, 'not an address', 'user0@slow.test');
    const id = await upload(account, 'partial.csv', rows.join('\n') + '\n', { check_smtp: 'true' });
    const partial = (query: string, style?: Style) =>
      suite.call(`/v1/verify/file/${id}/results?partial=true${query}`, { key: account.apiKey, style });

    // Without partial, a running job answers as it always has.
    const early = await suite.call(`/v1/verify/file/${id}/results`, { key: account.apiKey });
    expect(early.status).toBe(400);
    expect(early.json.error.code).toBe('INVALID_REQUEST');

    // Paused once some results are in, so what is read below stays part-way.
    await eventually(
      async () =>
        (await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey })).json.data.processed_emails > 0,
      {
        timeoutMs: 30_000,
      },
    );
    await suite.call(`/v1/verify/file/${id}/pause`, { key: account.apiKey, method: 'POST' });
    const first = await eventually(
      async () => {
        const res = await partial('');
        expect(res.status).toBe(200);
        expect(parseCsv(res.text).length).toBeGreaterThan(1);
        return res;
      },
      { timeoutMs: 30_000 },
    );
    // The current style streams the rows (no redirect to a link to keep), named as partial results.
    expect(first.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(first.headers.get('content-disposition')).toContain('partial-partial-results.csv');
    const partRows = parseCsv(first.text);
    expect(partRows.length - 1).toBeLessThan(rows.length - 1);
    const legacyPart = await partial('', 'legacy');
    expect(legacyPart.status).toBe(200);
    const filtered = parseCsv((await partial('&catchall=true')).text);
    const filteredLegacy = parseCsv((await partial('&invalid=true', 'legacy')).text);
    // The copies made for these requests are gone once read.
    expect((await suite.storedObjects()).filter((name) => name.startsWith('partial/'))).toEqual([]);

    await suite.call(`/v1/verify/file/${id}/resume`, { key: account.apiKey, method: 'POST' });
    const done = await suite.finishedJob(id, account.apiKey, { timeoutMs: 120_000 });
    expect(done.status).toBe('completed');
    const final = parseCsv(
      (await suite.call(`/v1/verify/file/${id}/results`, { key: account.apiKey, style: 'legacy' })).text,
    );
    expect(final).toHaveLength(rows.length);

    // Rows in input order: the partial file is the final file's first rows, line for line.
    expect(partRows).toEqual(final.slice(0, partRows.length));
    expect(parseCsv(legacyPart.text).length).toBeGreaterThanOrEqual(partRows.length);
    expect(parseCsv(legacyPart.text)).toEqual(final.slice(0, parseCsv(legacyPart.text).length));
    // The filters pick from a prefix as they pick from the final file (each copy was made a moment later than
    // the one before, so its prefix is at least as long).
    const statusColumn = final[0]!.indexOf('status');
    const only = (status: string, from: string[][]) => [
      final[0]!,
      ...from.slice(1).filter((row) => row[statusColumn] === status),
    ];
    expect(filtered.length).toBeGreaterThanOrEqual(only('catchall', partRows).length);
    expect(filtered).toEqual(only('catchall', final).slice(0, filtered.length));
    expect(filteredLegacy.length).toBeGreaterThanOrEqual(only('invalid', partRows).length);
    expect(filteredLegacy).toEqual(only('invalid', final).slice(0, filteredLegacy.length));

    // Once the job has ended, partial answers as without it: the current style is redirected to the file.
    const after = await partial('');
    expect(after.status).toBe(307);
  });
});
