import { type Account, bombXlsx, MailWorld, simpleXlsx, TestSuite, worksheetXml } from '@emailverify/testing';
import { signDownload } from '@emailverify/service-kit';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SECRET = 'file-jobs-test-download-secret';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- event bodies are checked field by field
type EventRecord = Record<string, any>;

function parseCsv(text: string): string[][] {
  const parsed = Papa.parse<string[]>(text.trimEnd(), { skipEmptyLines: false });
  return parsed.data;
}

describe('file jobs: upload, progress, results, pause/resume/cancel', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('files.test', {
        mx: [{ priority: 10, host: 'mx.files.test', smtp: { mailboxes: ['jane', 'bob'] } }],
      })
      .domain('slow.test', {
        mx: [{ priority: 10, host: 'mx.slow.test', smtp: { catchAll: true, delayMs: 400 } }],
      })
      .domain('nx.test', { nxdomain: true })
      .domain('mailinator.com', {
        mx: [{ priority: 10, host: 'mx.mailinator.com', smtp: { catchAll: true } }],
      })
      .domain('warn.test', { mx: [{ priority: 10, host: 'mx.warn.test', smtp: { catchAll: true } }] });
    suite = await TestSuite.start({
      world,
      env: {
        SMTP_MAX_CONCURRENCY_PER_MX: '50',
        DOWNLOAD_SIGNING_SECRET: SECRET,
        FILE_RECOVERY_INTERVAL_MS: '500',
        FILE_MAX_BYTES: String(24 * 1024 * 1024),
        FILE_MAX_EMAILS: '1000',
        FILE_MAX_UNZIPPED_BYTES: String(64 * 1024 * 1024),
        // Small chunks and a small window make pause and cancel observable mid-job.
        FILE_CHUNK_SIZE: '10',
        FILE_CHUNKS_IN_FLIGHT: '2',
        // A chunk that fails on every delivery is given up after the second.
        FILE_CHUNK_MAX_DELIVERIES: '2',
      },
    });
    account = await suite.createAccount({ credits: 100_000 });
  });
  afterAll(async () => suite?.stop());

  const upload = (
    name: string,
    content: string | Uint8Array,
    fields: Record<string, string> = {},
    key = account.apiKey,
    style?: 'legacy',
  ) => suite.upload({ key, file: { name, content }, fields, style });
  const status = (id: string, query = '', key = account.apiKey, style?: 'legacy') =>
    suite.call(`/v1/verify/file/${id}${query}`, { key, style });
  const balance = async (key = account.apiKey) =>
    (await suite.call('/v1/credits', { key })).json.data.credits_balance as number;

  /**
   * Runs `work` against a file-jobs process started for it, and returns that process's peak resident memory
   * (emailverify_process_max_resident_memory_bytes from its /metrics), so what earlier tests had file-jobs hold does not
   * count.
   */
  async function fileJobsPeakRss(work: () => Promise<void>): Promise<number> {
    await suite.stopService('file-jobs');
    await suite.startService('file-jobs');
    await work();
    const metrics = await (await fetch(`${suite.serviceUrl('file-jobs')}/metrics`)).text();
    const peak = Number(/emailverify_process_max_resident_memory_bytes\{[^}]*\} (\d+)/.exec(metrics)?.[1]);
    expect(peak).toBeGreaterThan(0);
    return peak;
  }

  const finished = (id: string): Promise<Record<string, unknown>> => suite.finishedJob(id, account.apiKey);

  async function download(
    id: string,
    query = '',
    style?: 'legacy',
  ): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await suite.call(`/v1/verify/file/${id}/results${query}`, { key: account.apiKey, style });
    return { status: res.status, text: res.text, headers: res.headers };
  }

  it('verifies a CSV with a header: upload reply, finished status, one result row per input row in order', async () => {
    const csv =
      'Name,Email,Note\nJane,jane@files.test,=HYPERLINK("http://evil")\nInfo,info@files.test,x\nGhost,ghost@nx.test,\nJane again,jane@files.test,dup\nTemp,temp@mailinator.com,\n';
    const before = await balance();
    const res = await upload('leads.csv', csv);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, code: '0' });
    expect(res.json.data).toEqual({
      task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      file_name: 'leads.csv',
      file_size: Buffer.byteLength(csv),
      status: 'pending',
      message: expect.any(String),
      status_url: expect.stringContaining(`/v1/verify/file/${res.json.data.task_id}`),
      created_at: expect.any(String),
      estimated_count: 5,
      unique_emails: 4,
      total_rows: 5,
      email_column: 'Email',
    });
    const id = res.json.data.task_id as string;
    const done = await finished(id);
    expect(done).toMatchObject({
      task_id: id,
      status: 'completed',
      progress: 100,
      total_emails: 4,
      processed_emails: 4,
      valid_emails: 1,
      invalid_emails: 1,
      role_emails: 1,
      disposable_emails: 1,
      catchall_emails: 0,
      risky_emails: 0,
      unknown_emails: 0,
      credits_used: 4,
      total_rows: 5,
      unique_emails: 4,
      download_url: expect.stringMatching(new RegExp(`/v1/verify/file/${id}/results$`)),
      direct_download_url: expect.stringContaining(`/v1/verify/file/${id}/download?`),
      direct_download_expires_at: expect.any(String),
      completed_at: expect.any(String),
      started_at: expect.any(String),
    });
    expect(done).not.toHaveProperty('result_file_url');
    expect(done).not.toHaveProperty('result_file_path');
    // Duplicates are verified and charged once.
    expect(await balance()).toBe(before - 4);

    const rows = parseCsv((await download(id, '', 'legacy')).text);
    // `Email` clashes with the verification column `email` (case-insensitively), which becomes `verify_email`.
    expect(rows[0]).toEqual([
      'Name',
      'Email',
      'Note',
      'verify_email',
      'status',
      'reason',
      'score',
      'is_deliverable',
      'is_disposable',
      'is_catchall',
      'is_role',
      'is_free',
      'domain',
      'mx_records',
      'domain_suggestion',
      'smtp_check',
    ]);
    expect(rows).toHaveLength(6);
    expect(rows.slice(1).map((r) => [r[1], r[4]])).toEqual([
      ['jane@files.test', 'valid'],
      ['info@files.test', 'role'],
      ['ghost@nx.test', 'invalid'],
      ['jane@files.test', 'valid'],
      ['temp@mailinator.com', 'disposable'],
    ]);
    // A formula in the input comes back escaped.
    expect(rows[1]![2]).toBe(`'=HYPERLINK("http://evil")`);
  });

  it('handles a CSV without a header, a TXT file, and a clashing "status" column', async () => {
    const headerless = await upload('plain.csv', 'bob@files.test,1\njane@files.test,2\n');
    expect(headerless.json.data).toMatchObject({ total_rows: 2, unique_emails: 2 });
    const txt = await upload('list.txt', 'bob@files.test\n\njane@files.test\nbob@files.test\n');
    expect(txt.json.data).toMatchObject({ total_rows: 3, unique_emails: 2, estimated_count: 3 });
    const clash = await upload('clash.csv', 'email,status\njane@files.test,customer\n');
    for (const r of [headerless, txt, clash])
      expect(await finished(r.json.data.task_id)).toMatchObject({ status: 'completed' });

    const plainRows = parseCsv((await download(headerless.json.data.task_id, '', 'legacy')).text);
    expect(plainRows).toHaveLength(3);
    expect(plainRows[1]!.slice(0, 2)).toEqual(['bob@files.test', '1']);
    const txtRows = parseCsv((await download(txt.json.data.task_id, '', 'legacy')).text);
    expect(txtRows.slice(1).map((r) => r[0])).toEqual([
      'bob@files.test',
      'jane@files.test',
      'bob@files.test',
    ]);
    const clashRows = parseCsv((await download(clash.json.data.task_id, '', 'legacy')).text);
    expect(clashRows[0]).toEqual(
      expect.arrayContaining(['email', 'status', 'verify_email', 'verify_status']),
    );
    const header = clashRows[0]!;
    expect(clashRows[1]![header.indexOf('status')]).toBe('customer');
    expect(clashRows[1]![header.indexOf('verify_status')]).toBe('valid');
  });

  it('verifies the first sheet of an XLSX workbook', async () => {
    const xlsx = simpleXlsx([
      ['Contact', 'E-mail address', 'Score'],
      ['Jane', 'jane@files.test', 3],
      ['Bob', 'bob@files.test', 5],
      ['Nobody', '', 1],
    ]);
    const res = await upload('book.xlsx', xlsx);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      status: 'pending',
      total_rows: 3,
      unique_emails: 2,
      estimated_count: 2,
      email_column: 'E-mail address',
    });
    expect(await finished(res.json.data.task_id)).toMatchObject({ status: 'completed', valid_emails: 2 });
    const rows = parseCsv((await download(res.json.data.task_id, '', 'legacy')).text);
    expect(rows).toHaveLength(4);
    expect(rows.slice(1).map((r) => [r[0], r[2], r[4]])).toEqual([
      ['Jane', '3', 'valid'],
      ['Bob', '5', 'valid'],
      ['Nobody', '1', 'invalid'],
    ]);
    expect(rows[3]![5]).toBe('missing_email');
  });

  it('refuses an XLSX zip bomb with a clear message, and memory stays bounded', async () => {
    const row = '<row><c t="inlineStr"><is><t>bomb@files.test</t></is></c></row>';
    const piece = row.repeat(Math.floor((1024 * 1024) / row.length));
    const header = worksheetXml('').replace('</sheetData></worksheet>', '');
    const pieces: Uint8Array[] = [];
    // 80 MiB of sheet behind a few hundred KiB of zip, past the 64 MiB unzipped limit of this suite.
    for await (const p of bombXlsx(header, piece, 80, '</sheetData></worksheet>')) pieces.push(p);
    const bomb = Buffer.concat(pieces);
    expect(bomb.length).toBeLessThan(24 * 1024 * 1024);
    const objectsBefore = await suite.storedObjects();
    const peak = await fileJobsPeakRss(async () => {
      const res = await upload('bomb.xlsx', bomb);
      expect(res.status).toBe(400);
      expect(res.json.error.message).toMatch(/zip bomb|unpacks|too large/i);
    });
    expect(await suite.storedObjects()).toEqual(objectsBefore);
    expect(peak).toBeLessThan(512 * 1024 * 1024);
  });

  it('refuses an email_column that does not exist, naming it', async () => {
    const res = await upload('leads.csv', 'Name,Mail\nJane,jane@files.test\n', { email_column: 'Courriel' });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('Courriel');
    const ok = await upload('leads.csv', 'Name,Mail\nJane,jane@files.test\n', { email_column: 'mail' });
    expect(ok.json.data.email_column).toBe('Mail');
  });

  it('filters results with OR semantics; no filter redirects to a signed link that works without a key', async () => {
    const res = await upload(
      'mix.csv',
      'email\njane@files.test\ninfo@files.test\nghost@nx.test\nbob@files.test\n',
    );
    const id = res.json.data.task_id as string;
    await finished(id);
    const filtered = await download(id, '?valid=true&role=true');
    expect(filtered.status).toBe(200);
    expect(filtered.headers.get('content-type')).toContain('text/csv');
    const rows = parseCsv(filtered.text);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['jane@files.test', 'info@files.test', 'bob@files.test']);
    const invalidOnly = parseCsv((await download(id, '?invalid=1')).text);
    expect(invalidOnly.slice(1).map((r) => r[0])).toEqual(['ghost@nx.test']);

    const redirect = await download(id);
    expect(redirect.status).toBe(307);
    const location = redirect.headers.get('location')!;
    const direct = await fetch(location);
    expect(direct.status).toBe(200);
    expect(parseCsv(await direct.text())).toHaveLength(5);

    const url = new URL(location);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 60));
    const bad = await fetch(tampered);
    expect(bad.status).toBe(403);
    expect(((await bad.json()) as EventRecord).error.code).toBe('DOWNLOAD_LINK_INVALID');
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = await fetch(
      `${url.origin}${url.pathname}?expires=${past}&signature=${signDownload(SECRET, id, past)}`,
    );
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as EventRecord).error.message).toMatch(/expired/);

    const legacy = await download(id, '', 'legacy');
    expect(legacy.status).toBe(200);
    expect(parseCsv(legacy.text)).toHaveLength(5);
    expect(
      (await suite.call(`/v1/verify/file/${id}/results?valid=maybe`, { key: account.apiKey })).status,
    ).toBe(400);
  });

  it('validates the long-poll timeout and hides unknown and foreign jobs', async () => {
    const res = await upload('a.csv', 'email\njane@files.test\n');
    const id = res.json.data.task_id as string;
    for (const bad of ['301', '-1', '1.5', 'soon']) {
      const r = await status(id, `?timeout=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.json.error.code).toBe('INVALID_REQUEST');
    }
    const missing = await status('00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('JOB_NOT_FOUND');
    expect((await status('not-a-uuid')).status).toBe(404);
    const stranger = await suite.createAccount();
    const foreign = await status(id, '', stranger.apiKey, 'legacy');
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('JOB_NOT_FOUND');
    expect((await suite.call(`/v1/verify/file/${id}/results`, { key: stranger.apiKey })).status).toBe(404);
    expect(
      (await suite.call(`/v1/verify/file/${id}/cancel`, { key: stranger.apiKey, method: 'POST' })).status,
    ).toBe(404);
  });

  it('shows only the running fields while a job runs, pauses, resumes, and a long poll wakes on completion', async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `user${i}@slow.test`).join('\n');
    const res = await upload('slow.txt', emails, { check_smtp: 'true' });
    const id = res.json.data.task_id as string;
    const paused = await suite.call(`/v1/verify/file/${id}/pause`, { key: account.apiKey, method: 'POST' });
    expect(paused.status).toBe(200);
    expect(paused.json.data.status).toBe('paused');
    expect(Object.keys(paused.json.data).sort()).toEqual(
      [
        'task_id',
        'status',
        'progress',
        'email_progress',
        'chunk_progress',
        'progress_source',
        'total_emails',
        'processed_emails',
        'waiting_emails',
        'valid_emails',
        'invalid_emails',
        'unknown_emails',
        'total_chunks',
        'completed_chunks',
        'failed_chunks',
        'unique_emails',
        'total_rows',
        'started_at',
      ].sort(),
    );
    // A short long-poll on a paused job returns at its timeout, still paused.
    expect((await status(id, '?timeout=1')).json.data.status).toBe('paused');
    const waiting = status(id, '?timeout=300');
    const resumed = await suite.call(`/v1/verify/file/${id}/resume`, { key: account.apiKey, method: 'POST' });
    expect(resumed.json.data.status).toMatch(/pending|running|processing/);
    const woke = await waiting;
    expect(woke.json.data).toMatchObject({ status: 'completed', catchall_emails: 30, credits_used: 30 });
    const legacy = await status(id, '', account.apiKey, 'legacy');
    expect(legacy.json).toMatchObject({
      job_id: id,
      file_name: 'slow.txt',
      status: 'completed',
      total_emails: 30,
      catchall_emails: 30,
      progress_percent: 100,
    });
  });

  it('cancels a job and refunds what was not verified', async () => {
    const before = await balance();
    const emails = Array.from({ length: 40 }, (_, i) => `c${i}@slow.test`).join('\n');
    const res = await upload('cancel.txt', emails, { check_smtp: 'true' });
    const id = res.json.data.task_id as string;
    await suite.call(`/v1/verify/file/${id}/pause`, { key: account.apiKey, method: 'POST' });
    const cancelled = await suite.call(`/v1/verify/file/${id}/cancel`, {
      key: account.apiKey,
      method: 'POST',
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.data.status).toBe('cancelled');
    const charged = cancelled.json.data.credits_used as number;
    // At most the two chunks of the window were in flight: the rest was never verified nor charged.
    expect(charged).toBeLessThanOrEqual(20);
    expect(await balance()).toBe(before - charged);
    const again = await suite.call(`/v1/verify/file/${id}/cancel`, { key: account.apiKey, method: 'POST' });
    expect(again.status).toBe(400);
    expect((await download(id)).status).toBe(400);
    // A cancelled job emits no event: none is owed (the outbox row would be written with the state change)
    // and none was published.
    expect(await suite.sql(`SELECT event FROM files.event_outbox WHERE job_id = $1`, [id])).toEqual([]);
    expect((await suite.events()).filter((e) => (e as EventRecord).data.job_id === id)).toEqual([]);
  });

  it('refuses a job the credits cannot cover: 402/403, no job, no stored file', async () => {
    const poor = await suite.createAccount({ credits: 1 });
    const objectsBefore = await suite.storedObjects();
    const current = await upload('two.csv', 'email\njane@files.test\nbob@files.test\n', {}, poor.apiKey);
    expect(current.status).toBe(402);
    expect(current.json.error.code).toBe('INSUFFICIENT_CREDITS');
    const legacy = await upload(
      'two.csv',
      'email\njane@files.test\nbob@files.test\n',
      {},
      poor.apiKey,
      'legacy',
    );
    expect(legacy.status).toBe(403);
    expect(await suite.storedObjects()).toEqual(objectsBefore);
    expect(await suite.sql(`SELECT id FROM files.jobs WHERE account_id = $1`, [poor.accountId])).toEqual([]);
    expect(await balance(poor.apiKey)).toBe(1);
  });

  it('refuses bad files with a clear 4xx and stores nothing', async () => {
    const objectsBefore = await suite.storedObjects();
    const peak = await fileJobsPeakRss(async () => {
      const cases: Array<[string, string | Uint8Array, number, RegExp]> = [
        [
          'garbage.csv',
          new Uint8Array(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
          400,
          /not a valid|text/i,
        ],
        ['long.csv', `email\n${'a'.repeat(10 * 1024 * 1024)}@files.test\n`, 400, /line/i],
        ['empty.csv', 'name,phone\nJane,123\nBob,456\n', 400, /no e-mail address/i],
        ['notes.pdf', 'jane@files.test', 400, /\.csv, \.xlsx or \.txt/],
        ['big.csv', `email\n${'x@files.test\n'.repeat(2_000_000)}`, 413, /./],
        ['many.txt', Array.from({ length: 1001 }, (_, i) => `u${i}@files.test`).join('\n'), 413, /1000/],
      ];
      for (const [name, content, code, message] of cases) {
        const res = await upload(name, content);
        expect(res.status, name).toBe(code);
        expect(res.json.error.message, name).toMatch(message);
        if (code === 413) expect(res.json.code, name).toBe('4130');
      }
    });
    // A 10 MB line, garbage and oversized files are refused without file-jobs holding them in memory.
    expect(peak).toBeLessThan(512 * 1024 * 1024);
    const missing = await suite.upload({ key: account.apiKey, fields: { email_column: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toContain('file');
    const unknownField = await upload('a.csv', 'email\njane@files.test\n', { colour: 'red' });
    expect(unknownField.status).toBe(400);
    expect(await suite.storedObjects()).toEqual(objectsBefore);
  });

  // A failed job's file.failed: job-merger.outcomes.spec.ts, and end to end in webhooks-delivery.e2e-spec.ts.
  it('publishes file.completed with every field', async () => {
    // Addresses not verified before in this run: cached results would cost nothing.
    const res = await upload('events.csv', 'email\nfresh.event@files.test\nadmin@files.test\n');
    const id = res.json.data.task_id as string;
    await finished(id);
    const completed = (await suite.events()).find(
      (e) => (e as { data: { job_id: string } }).data.job_id === id,
    ) as EventRecord;
    expect(completed).toMatchObject({ event: 'file.completed', timestamp: expect.any(String) });
    expect(Object.keys(completed.data).sort()).toEqual(
      [
        'job_id',
        'file_name',
        'total_emails',
        'valid_emails',
        'invalid_emails',
        'role_emails',
        'catchall_emails',
        'unknown_emails',
        'disposable_emails',
        'credits_used',
        'process_time_seconds',
        'download_url',
        'direct_download_url',
        'direct_download_expires_at',
      ].sort(),
    );
    expect(completed.data).toMatchObject({
      job_id: id,
      file_name: 'events.csv',
      total_emails: 2,
      valid_emails: 1,
      role_emails: 1,
      credits_used: 2,
    });
  });

  /**
   * A chunk the verifier cannot work on any delivery (here: its result store is gone) is given up after
   * FILE_CHUNK_MAX_DELIVERIES: its addresses come back unknown `verification_failed`, free, and the job ends
   * `completed_with_warning` with every row present.
   */
  it('completes a job whose chunks fail on every delivery with a warning, charging nothing for them, with every row', async () => {
    const warned = await suite.createAccount({ credits: 1_000 });
    await suite.sql(`ALTER TABLE verifier.results RENAME TO results_away`);
    try {
      const rows = Array.from({ length: 25 }, (_, i) => `user${i}@warn.test`);
      const created = await upload('warn.csv', `email\n${rows.join('\n')}\n`, {}, warned.apiKey);
      expect(created.status).toBe(200);
      const id = created.json.data.task_id as string;
      const done: Record<string, unknown> = await suite.finishedJob(id, warned.apiKey, {
        timeoutMs: 100_000,
      });
      expect(done).toMatchObject({
        status: 'completed_with_warning',
        total_chunks: 3,
        completed_chunks: 0,
        failed_chunks: 3,
        processed_emails: 25,
        unknown_emails: 25,
        credits_used: 0,
      });
      expect(await balance(warned.apiKey)).toBe(1_000);
      // Completed with a warning is completed: it emits file.completed.
      const events = (await suite.events()) as EventRecord[];
      expect(events.filter((e) => e.data.job_id === id).map((e) => e.event)).toEqual(['file.completed']);
      const file = await suite.call(`/v1/verify/file/${id}/results`, { key: warned.apiKey, style: 'legacy' });
      const result = Papa.parse<string[]>(file.text.trimEnd()).data;
      // The original column, then verify_email, status, reason.
      expect(result.slice(1).map((r) => [r[0], r[2], r[3]])).toEqual(
        rows.map((email) => [email, 'unknown', 'verification_failed']),
      );
    } finally {
      await suite.sql(`ALTER TABLE verifier.results_away RENAME TO results`);
    }
  });
});
