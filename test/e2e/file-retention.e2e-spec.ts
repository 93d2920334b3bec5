import { randomBytes } from 'node:crypto';
import { JetStreamKit } from '@emailverify/messaging';
import { type Account, eventually, MailWorld, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A file job's files are personal data: DELETE erases a job at once, retention deletes the files of ended jobs,
// and the bucket holding them has a size limit that refuses uploads before anything is charged.

/** FILE_STORE_MAX_BYTES of this suite: small enough to fill, large enough for every job here. */
const STORE_LIMIT = 4 * 1024 * 1024;

describe('file jobs: deletion, retention and the size of the file store', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('keep.test', {
        mx: [{ priority: 10, host: 'mx.keep.test', smtp: { mailboxes: ['ann', 'ben', 'cy', 'dee', 'eve'] } }],
      })
      .domain('slow.test', {
        mx: [{ priority: 10, host: 'mx.slow.test', smtp: { catchAll: true, delayMs: 400 } }],
      });
    suite = await TestSuite.start({
      world,
      env: {
        FILE_RECOVERY_INTERVAL_MS: '500',
        FILE_CHUNK_SIZE: '10',
        FILE_CHUNKS_IN_FLIGHT: '2',
        FILE_STORE_MAX_BYTES: String(STORE_LIMIT),
      },
    });
    account = await suite.createAccount({ credits: 10_000 });
  });
  afterAll(async () => suite?.stop());

  const upload = (name: string, content: string, fields: Record<string, string> = {}, style?: 'legacy') =>
    suite.upload({ key: account.apiKey, file: { name, content }, fields, style });
  const balance = async (key = account.apiKey) =>
    (await suite.call('/v1/credits', { key })).json.data.credits_balance as number;
  const remove = (id: string, key = account.apiKey, style?: 'legacy') =>
    suite.call(`/v1/verify/file/${id}`, { key, style, method: 'DELETE' });
  const storedFiles = (id: string) =>
    suite.sql<{ upload_object: string; result_object: string | null }>(
      `SELECT upload_object, result_object FROM files.jobs WHERE id = $1`,
      [id],
    );
  const rowsOf = async (id: string) => ({
    jobs: (await suite.sql(`SELECT id FROM files.jobs WHERE id = $1`, [id])).length,
    chunks: (await suite.sql(`SELECT chunk FROM files.job_chunks WHERE job_id = $1`, [id])).length,
    outbox: (await suite.sql(`SELECT event FROM files.event_outbox WHERE job_id = $1`, [id])).length,
  });

  /** Uploads a file and waits until its job has finished; returns the job id and its finished status. */
  async function finishedJob(name: string, content: string) {
    const res = await upload(name, content);
    expect(res.status, res.text).toBe(200);
    const id = res.json.data.task_id as string;
    const done = await suite.finishedJob(id, account.apiKey);
    expect(done.status).toBe('completed');
    return { id, done };
  }

  it("DELETE erases a finished job's files and rows at once and its charges stand; another account's DELETE and a second one are 404", async () => {
    const before = await balance();
    const { id } = await finishedJob('gone.csv', 'email\nann@keep.test\nben@keep.test\ncy@keep.test\n');
    expect(await balance()).toBe(before - 3);
    const [files] = await storedFiles(id);
    expect(files!.result_object).toBe(`results/${id}.csv`);
    expect(await suite.storedObjects()).toEqual(
      expect.arrayContaining([files!.upload_object, files!.result_object]),
    );

    const stranger = await suite.createAccount();
    const foreign = await remove(id, stranger.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ success: false, code: '4040', error: { code: 'JOB_NOT_FOUND' } });
    const foreignLegacy = await remove(id, stranger.apiKey, 'legacy');
    expect(foreignLegacy.status).toBe(404);
    expect(foreignLegacy.json).toEqual({ error: { code: 'JOB_NOT_FOUND', message: expect.any(String) } });
    // Nothing of the job was touched by the stranger.
    expect((await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey })).status).toBe(200);

    const deleted = await remove(id);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({
      success: true,
      code: '0',
      message: expect.any(String),
      data: { message: 'Job deleted with its files', job_id: id },
    });
    const objects = await suite.storedObjects();
    expect(objects).not.toContain(files!.upload_object);
    expect(objects).not.toContain(files!.result_object);
    expect(await rowsOf(id)).toEqual({ jobs: 0, chunks: 0, outbox: 0 });
    // What was verified stays charged.
    expect(await balance()).toBe(before - 3);

    for (const style of [undefined, 'legacy'] as const) {
      const again = await remove(id, account.apiKey, style);
      expect(again.status).toBe(404);
      expect(again.json.error.code).toBe('JOB_NOT_FOUND');
    }
    expect((await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey })).status).toBe(404);
    expect((await suite.call(`/v1/verify/file/${id}/results`, { key: account.apiKey })).status).toBe(404);

    // The legacy style answers the same body, unwrapped.
    const { id: other } = await finishedJob('other.csv', 'email\ndee@keep.test\n');
    const legacy = await remove(other, account.apiKey, 'legacy');
    expect(legacy.status).toBe(200);
    expect(legacy.json).toEqual({ message: 'Job deleted with its files', job_id: other });
    expect(await rowsOf(other)).toEqual({ jobs: 0, chunks: 0, outbox: 0 });
  });

  it('DELETE cancels a running job first: what was verified stays charged, the rest is refunded', async () => {
    const before = await balance();
    const emails = Array.from({ length: 40 }, (_, i) => `run${i}@slow.test`).join('\n');
    const res = await upload('running.txt', emails, { check_smtp: 'true' });
    const id = res.json.data.task_id as string;
    const [files] = await storedFiles(id);
    // The whole job is reserved at upload.
    expect(await balance()).toBe(before - 40);
    const deleted = await remove(id);
    expect(deleted.status).toBe(200);
    expect(deleted.json.data).toEqual({
      message: expect.stringMatching(/^Job cancelled and deleted/),
      job_id: id,
    });
    expect(await rowsOf(id)).toEqual({ jobs: 0, chunks: 0, outbox: 0 });
    expect(await suite.storedObjects()).not.toContain(files!.upload_object);
    // At most the two chunks of the window were being verified; everything else came back.
    const charged = before - (await balance());
    expect(charged).toBeGreaterThanOrEqual(0);
    expect(charged).toBeLessThanOrEqual(20);
    // A cancelled job owes no event.
    expect(
      (await suite.events()).filter((e) => (e as { data: { job_id: string } }).data.job_id === id),
    ).toEqual([]);
  });

  it('a full file store refuses uploads with 503 in both styles, storing and charging nothing', async () => {
    const kit = new JetStreamKit(suite.bus);
    const store = await kit.objectStore('files');
    const bytes = await kit.bucketBytes('files');
    // Other data fills the bucket up to 100 KiB short of its limit.
    const filler = randomBytes(STORE_LIMIT - bytes - 100 * 1024);
    await store.putBlob({ name: 'filler' }, filler);
    const objectsBefore = await suite.storedObjects();
    const jobsBefore = await suite.sql(`SELECT id FROM files.jobs WHERE account_id = $1`, [
      account.accountId,
    ]);
    const before = await balance();
    // One address and a 200 KiB note: more than the room left.
    const csv = `email,note\neve@keep.test,${'n'.repeat(200 * 1024)}\n`;

    const current = await upload('big.csv', csv);
    expect(current.status).toBe(503);
    expect(current.json).toEqual({
      success: false,
      code: '1000',
      message: 'Service unavailable',
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/file store is full/) },
    });
    const legacy = await upload('big.csv', csv, {}, 'legacy');
    expect(legacy.status).toBe(503);
    expect(legacy.json).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/file store is full/) },
    });

    // Without a declared length (a chunked request) the upload starts, is cut off once it passes the room left,
    // and what it had stored is removed.
    const boundary = `----retention${randomBytes(6).toString('hex')}`;
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="chunked.csv"\r\n` +
          `Content-Type: text/csv\r\n\r\n`,
      ),
      Buffer.from(csv),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const chunked = await fetch(`${suite.gatewayUrl()}/v1/verify/file`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': account.apiKey, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let off = 0; off < body.length; off += 16 * 1024)
            controller.enqueue(body.subarray(off, off + 16 * 1024));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(503);
    expect(((await chunked.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');

    expect(await balance()).toBe(before);
    expect(await suite.storedObjects()).toEqual(objectsBefore);
    expect(await kit.bucketBytes('files')).toBeLessThanOrEqual(STORE_LIMIT);
    expect(await suite.sql(`SELECT id FROM files.jobs WHERE account_id = $1`, [account.accountId])).toEqual(
      jobsBefore,
    );

    // With room again, the same upload is a job.
    await store.delete('filler');
    const accepted = await upload('big.csv', csv);
    expect(accepted.status, accepted.text).toBe(200);
    expect(await suite.finishedJob(accepted.json.data.task_id, account.apiKey)).toMatchObject({
      status: 'completed',
    });
  });

  it('after FILE_RETENTION_DAYS the files are deleted: both downloads answer 404 saying so, the status stays', async () => {
    const { id, done } = await finishedJob('kept.csv', 'email\nann@keep.test\nben@keep.test\n');
    const signed = done.direct_download_url as string;
    expect((await fetch(signed)).status).toBe(200);
    const [files] = await storedFiles(id);

    // file-jobs again, now keeping files for about a tenth of a second and sweeping often.
    await suite.stopService('file-jobs');
    await suite.startService('file-jobs', {
      FILE_RETENTION_DAYS: '0.000001',
      FILE_RETENTION_SWEEP_INTERVAL_MS: '200',
    });
    await eventually(
      async () =>
        (await suite.sql(`SELECT id FROM files.jobs WHERE id = $1 AND files_deleted_at IS NOT NULL`, [id]))
          .length === 1,
      { timeoutMs: 30_000, intervalMs: 200 },
    );

    const objects = await suite.storedObjects();
    expect(objects).not.toContain(files!.upload_object);
    expect(objects).not.toContain(files!.result_object);
    // The addresses kept per chunk go too; the job's record and counts stay.
    expect(await rowsOf(id)).toEqual({ jobs: 1, chunks: 0, outbox: 0 });
    const status = await suite.call(`/v1/verify/file/${id}`, { key: account.apiKey });
    expect(status.status).toBe(200);
    expect(status.json.data).toMatchObject({
      task_id: id,
      status: 'completed',
      total_emails: 2,
      valid_emails: 2,
    });

    for (const query of ['', '?valid=true']) {
      const current = await suite.call(`/v1/verify/file/${id}/results${query}`, { key: account.apiKey });
      expect(current.status).toBe(404);
      expect(current.json).toMatchObject({ success: false, code: '4040', error: { code: 'JOB_NOT_FOUND' } });
      expect(current.json.error.message).toMatch(/files of this job were deleted .*kept for 0\.000001 days/);
      const legacy = await suite.call(`/v1/verify/file/${id}/results${query}`, {
        key: account.apiKey,
        style: 'legacy',
      });
      expect(legacy.status).toBe(404);
      expect(legacy.json.error).toMatchObject({
        code: 'JOB_NOT_FOUND',
        message: expect.stringMatching(/deleted/),
      });
    }
    // The signed link needs no key; its reply takes the style the request asks for.
    const link = await fetch(signed);
    expect(link.status).toBe(404);
    expect(await link.json()).toMatchObject({
      success: false,
      code: '4040',
      error: { code: 'JOB_NOT_FOUND', message: expect.stringMatching(/files of this job were deleted/) },
    });
    const legacyLink = await fetch(signed, { headers: { 'SVC-Response-Style': 'legacy' } });
    expect(legacyLink.status).toBe(404);
    expect(await legacyLink.json()).toEqual({
      error: {
        code: 'JOB_NOT_FOUND',
        message: expect.stringMatching(/files of this job were deleted/),
        details: expect.objectContaining({ retention_days: 0.000001 }),
      },
    });

    // The record can still be erased.
    expect((await remove(id)).status).toBe(200);
    expect(await rowsOf(id)).toEqual({ jobs: 0, chunks: 0, outbox: 0 });
  });
});
