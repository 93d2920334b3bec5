import { DomainError, FILE_NAME_MAX_LENGTH, jobStatusSubject, Subjects } from '@emailverify/contracts';
import { signDownload } from '@emailverify/service-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JOB_ID, makeJob } from '../testing/factories';
import { ACCOUNT, GatewayHarness } from '../testing/gateway-harness';
import { expectError, expectFieldError, payloadOf, STYLES } from '../testing/replies';

// The file routes over HTTP, file-jobs stood in for and the object store in memory: uploads, status with its
// links, result downloads (redirect, file, filtered rows) and the signed link.

const SECRET = 'unit-test-download-signing-secret';
const BASE = 'https://api.example.com';
const RESULTS = {
  jobId: JOB_ID,
  objectName: `results/${JOB_ID}.csv`,
  fileName: 'leads-results.csv',
  statusColumn: 1,
};
const CSV = 'email,status\r\na@example.com,valid\r\nb@example.com,invalid\r\nc@example.com,role\r\n';

/** The path and query of a link under BASE, to follow it on the harness. */
const pathOf = (url: string) => url.slice(BASE.length);

describe('file routes', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start({
      env: { PUBLIC_BASE_URL: `${BASE}/`, DOWNLOAD_SIGNING_SECRET: SECRET },
    });
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => {
    gateway.reset();
    gateway.jetStream.store.objects.clear();
    gateway.jetStream.store.objects.set(RESULTS.objectName, Buffer.from(CSV));
    gateway.bus.answer(Subjects.filesJobGet, () => makeJob({ status: 'completed', processedEmails: 100 }));
    gateway.bus.answer(Subjects.filesJobResults, () => RESULTS);
    gateway.bus.answer(Subjects.filesJobLocate, () => ({
      ...RESULTS,
      accountId: ACCOUNT,
      status: 'completed',
    }));
  });

  describe('POST /v1/verify/file', () => {
    it.each(STYLES)(
      'stores the upload, asks file-jobs to create the job, and answers it (%s style)',
      async (style) => {
        gateway.bus.answer(Subjects.filesJobCreate, (request) =>
          makeJob({
            status: 'pending',
            fileName: request.fileName,
            fileSize: request.fileSize,
            processedEmails: 0,
          }),
        );
        const form = new FormData();
        form.append('file', new Blob(['email\na@example.com\n']), 'leads.csv');
        form.append('email_column', 'email');
        form.append('check_smtp', 'true');
        const res = await gateway.call('/v1/verify/file', { style, form });
        const payload = payloadOf(style, res);
        if (style === 'current') {
          expect(payload).toMatchObject({
            task_id: JOB_ID,
            status: 'pending',
            status_url: `${BASE}/v1/verify/file/${JOB_ID}`,
          });
        } else {
          expect(payload).toEqual({
            job_id: JOB_ID,
            file_name: 'leads.csv',
            total_emails: 100,
            status: 'pending',
            created_at: expect.any(String),
          });
        }
        const [stored] = [...gateway.jetStream.store.objects.keys()].filter((name) =>
          name.startsWith('uploads/'),
        );
        expect(gateway.bus.asked).toEqual([
          {
            subject: Subjects.filesJobCreate,
            payload: {
              accountId: ACCOUNT,
              uploadObject: stored,
              fileName: 'leads.csv',
              fileSize: 20,
              emailColumn: 'email',
              checkSmtp: true,
              preserveOriginal: true,
              enrich: false,
            },
            requestId: res.headers.get('x-request-id'),
          },
        ]);
      },
    );

    it.each(STYLES)(
      'passes enrich=true on to file-jobs, and refuses a value that is not a boolean (%s style)',
      async (style) => {
        gateway.bus.answer(Subjects.filesJobCreate, (request) =>
          makeJob({ status: 'pending', fileName: request.fileName, fileSize: request.fileSize }),
        );
        const upload = (enrich: string) => {
          const form = new FormData();
          form.append('file', new Blob(['a@example.com\n']), 'leads.txt');
          form.append('enrich', enrich);
          return gateway.call('/v1/verify/file', { style, form });
        };
        expect((await upload('true')).status).toBe(200);
        expect(gateway.bus.asked).toHaveLength(1);
        expect(gateway.bus.asked[0]!.payload).toMatchObject({ enrich: true, checkSmtp: false });
        expectFieldError(style, await upload('maybe'), 'enrich');
        expect(gateway.bus.asked).toHaveLength(1);
      },
    );

    it('removes the stored upload when file-jobs refuses the job', async () => {
      gateway.bus.answer(Subjects.filesJobCreate, () => {
        throw new DomainError('INSUFFICIENT_CREDITS', 'Not enough credits: 1 needed, 0 available');
      });
      const form = new FormData();
      form.append('file', new Blob(['a@example.com\n']), 'leads.txt');
      const legacy = await gateway.call('/v1/verify/file', { style: 'legacy', form });
      expectError('legacy', legacy, 403, 'INSUFFICIENT_CREDITS');
      expect([...gateway.jetStream.store.objects.keys()]).toEqual([RESULTS.objectName]);
    });

    it.each(STYLES)(
      'refuses a request without a file with 400 naming the field (%s style)',
      async (style) => {
        const form = new FormData();
        form.append('email_column', 'email');
        expectFieldError(style, await gateway.call('/v1/verify/file', { style, form }), 'file');
        expect(gateway.bus.asked).toEqual([]);
      },
    );

    it.each(STYLES)(
      'refuses a file name of 600 characters with 400 saying so, and keeps nothing (%s style)',
      async (style) => {
        const form = new FormData();
        form.append('file', new Blob(['a@example.com\n']), `${'n'.repeat(596)}.csv`);
        const res = await gateway.call('/v1/verify/file', { style, form });
        expectFieldError(style, res, 'file');
        const error = expectError(style, res, 400, 'INVALID_REQUEST');
        expect(error.message).toBe(
          `file name is too long: at most ${FILE_NAME_MAX_LENGTH} characters (got 600); rename the file and upload it again`,
        );
        expect(error.message).not.toMatch(/too big|expected/i);
        if (style === 'legacy') expect(error.details).toEqual({ field: 'file', max: FILE_NAME_MAX_LENGTH });
        expect(gateway.bus.asked).toEqual([]);
        expect([...gateway.jetStream.store.objects.keys()]).toEqual([RESULTS.objectName]);
      },
    );

    it('takes a file name of exactly the longest length', async () => {
      gateway.bus.answer(Subjects.filesJobCreate, (request) =>
        makeJob({ status: 'pending', fileName: request.fileName }),
      );
      const name = `${'n'.repeat(FILE_NAME_MAX_LENGTH - 4)}.csv`;
      const form = new FormData();
      form.append('file', new Blob(['a@example.com\n']), name);
      payloadOf('current', await gateway.call('/v1/verify/file', { form }));
      expect(gateway.bus.asked).toMatchObject([
        { subject: Subjects.filesJobCreate, payload: { fileName: name } },
      ]);
    });
  });

  describe('GET /v1/verify/file/{jobId}', () => {
    it('asks file-jobs for the job and adds both links once it has completed', async () => {
      const res = await gateway.call(`/v1/verify/file/${JOB_ID}`);
      const data = payloadOf('current', res) as Record<string, string>;
      expect(gateway.bus.asked[0]).toMatchObject({
        subject: Subjects.filesJobGet,
        payload: { accountId: ACCOUNT, jobId: JOB_ID, mode: 'live' },
      });
      expect(data.download_url).toBe(`${BASE}/v1/verify/file/${JOB_ID}/results`);
      expect(data.direct_download_url).toMatch(
        new RegExp(`^${BASE}/v1/verify/file/${JOB_ID}/download\\?expires=\\d+&signature=[0-9a-f]{64}$`),
      );
      const expires = Number(new URL(data.direct_download_url!).searchParams.get('expires'));
      expect(data.direct_download_expires_at).toBe(new Date(expires * 1000).toISOString());
    });

    it('adds no links to a job that has not completed', async () => {
      gateway.bus.answer(Subjects.filesJobGet, () =>
        makeJob({ status: 'failed', error: { code: 'JOB_FAILED', message: 'x' } }),
      );
      const data = payloadOf('current', await gateway.call(`/v1/verify/file/${JOB_ID}`)) as Record<
        string,
        unknown
      >;
      expect(data).not.toHaveProperty('download_url');
      expect(data).not.toHaveProperty('direct_download_url');
    });

    it('waits for the job with ?timeout and wakes on its status broadcast', async () => {
      let status: 'running' | 'completed' = 'running';
      gateway.bus.answer(Subjects.filesJobGet, () => makeJob({ status }));
      const waiting = gateway.call(`/v1/verify/file/${JOB_ID}?timeout=30`);
      await expect.poll(() => gateway.bus.asked.length).toBe(1);
      status = 'completed';
      gateway.bus.broadcast(jobStatusSubject(JOB_ID), { jobId: JOB_ID, status: 'completed' });
      const res = await waiting;
      expect(payloadOf('current', res)).toMatchObject({ status: 'completed' });
      expect(gateway.bus.asked).toHaveLength(2);
    });

    it.each(['-1', '301', 'soon'])('refuses ?timeout=%s with 400 naming the field', async (timeout) => {
      expectFieldError(
        'current',
        await gateway.call(`/v1/verify/file/${JOB_ID}?timeout=${timeout}`),
        'timeout',
      );
      expect(gateway.bus.asked).toEqual([]);
    });
  });

  describe('GET /v1/verify/file/{jobId}/results', () => {
    it('redirects the current style without filters to the signed link, which works without a key', async () => {
      const res = await gateway.call(`/v1/verify/file/${JOB_ID}/results`);
      expect(res.status).toBe(307);
      const location = res.headers.get('location')!;
      expect(location).toMatch(new RegExp(`^${BASE}/v1/verify/file/${JOB_ID}/download\\?`));
      const file = await gateway.call(pathOf(location), { key: null });
      expect(file.status).toBe(200);
      expect(file.text).toBe(CSV);
      // No key: the signed link is limited per client address (RATE_LIMIT_DOWNLOAD, 60 a minute).
      expect(file.headers.get('x-ratelimit-limit')).toBe('60');
    });

    it('answers the legacy style with the file itself', async () => {
      const res = await gateway.call(`/v1/verify/file/${JOB_ID}/results`, { style: 'legacy' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename=leads-results.csv');
      expect(res.text).toBe(CSV);
    });

    it.each(STYLES)('answers only the rows matching any filter, header first (%s style)', async (style) => {
      const res = await gateway.call(`/v1/verify/file/${JOB_ID}/results?valid=true&role=true&invalid=false`, {
        style,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(
        'attachment; filename=leads-results-valid-role.csv',
      );
      expect(res.text.split(/\r?\n/).filter(Boolean)).toEqual([
        'email,status',
        'a@example.com,valid',
        'c@example.com,role',
      ]);
    });
  });

  describe('GET /v1/verify/file/{jobId}/results?partial=true', () => {
    const PARTIAL = { ...RESULTS, objectName: `partial/${JOB_ID}/copy.csv`, temporary: true };

    it.each(STYLES)(
      'streams the copy of the rows verified so far, filtered as the final file, then removes it (%s style)',
      async (style) => {
        gateway.jetStream.store.objects.set(PARTIAL.objectName, Buffer.from(CSV));
        gateway.bus.answer(Subjects.filesJobResults, (request) =>
          request.partial ? { ...PARTIAL, fileName: 'leads-partial-results.csv' } : RESULTS,
        );
        const res = await gateway.call(`/v1/verify/file/${JOB_ID}/results?partial=true&valid=true`, {
          style,
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-disposition')).toBe(
          'attachment; filename=leads-partial-results-valid.csv',
        );
        expect(res.text.split(/\r?\n/).filter(Boolean)).toEqual(['email,status', 'a@example.com,valid']);
        expect(gateway.bus.asked[0]!.payload).toEqual({
          accountId: ACCOUNT,
          jobId: JOB_ID,
          mode: 'live',
          partial: true,
        });
        expect(gateway.jetStream.store.objects.has(PARTIAL.objectName)).toBe(false);
      },
    );

    it('answers the current style without filters with the copy itself, never a redirect', async () => {
      gateway.jetStream.store.objects.set(PARTIAL.objectName, Buffer.from(CSV));
      gateway.bus.answer(Subjects.filesJobResults, () => PARTIAL);
      const res = await gateway.call(`/v1/verify/file/${JOB_ID}/results?partial=true`);
      expect(res.status).toBe(200);
      expect(res.text).toBe(CSV);
      expect(gateway.jetStream.store.objects.has(PARTIAL.objectName)).toBe(false);
    });

    it('asks as before without partial, and refuses a value that is not a boolean', async () => {
      await gateway.call(`/v1/verify/file/${JOB_ID}/results?partial=false`, { style: 'legacy' });
      expect(gateway.bus.asked[0]!.payload).toEqual({ accountId: ACCOUNT, jobId: JOB_ID, mode: 'live' });
      for (const style of STYLES)
        expectFieldError(
          style,
          await gateway.call(`/v1/verify/file/${JOB_ID}/results?partial=yes`, { style }),
          'partial',
        );
    });
  });

  describe('GET /v1/verify/file', () => {
    const page = {
      jobs: [
        { ...makeJob({ status: 'processing', processedEmails: 50, creditsUsed: 0 }), filesDeletedAt: null },
      ],
      nextCursor: 'bmV4dA',
    };

    it.each(STYLES)('asks file-jobs for one page and answers it (%s style)', async (style) => {
      gateway.bus.answer(Subjects.filesJobList, () => page);
      const res = await gateway.call(
        '/v1/verify/file?status=processing,completed,processing&limit=5&cursor=Y3Vy',
        {
          style,
        },
      );
      expect(res.status).toBe(200);
      expect(gateway.bus.asked[0]!.payload).toEqual({
        accountId: ACCOUNT,
        mode: 'live',
        limit: 5,
        statuses: ['processing', 'completed'],
        cursor: 'Y3Vy',
      });
      const payload = payloadOf(style, res) as { jobs: Record<string, unknown>[]; next_cursor: string };
      expect(payload.next_cursor).toBe('bmV4dA');
      if (style === 'current') {
        expect(payload.jobs[0]).toMatchObject({
          task_id: JOB_ID,
          status: 'processing',
          progress: 50,
          credits_used: null,
          files_deleted_at: null,
        });
      } else {
        expect(payload.jobs[0]).toMatchObject({
          job_id: JOB_ID,
          progress_percent: 50,
          files_deleted_at: null,
        });
      }
    });

    it('asks for 20 jobs of every state by default', async () => {
      gateway.bus.answer(Subjects.filesJobList, () => ({ jobs: [], nextCursor: null }));
      const res = await gateway.call('/v1/verify/file');
      expect(payloadOf('current', res)).toEqual({ jobs: [], next_cursor: null });
      expect(gateway.bus.asked[0]!.payload).toEqual({ accountId: ACCOUNT, mode: 'live', limit: 20 });
    });

    it.each(
      STYLES.flatMap((style) =>
        [
          ['limit', 'limit=0'],
          ['limit', 'limit=101'],
          ['limit', 'limit=1.5'],
          ['limit', 'limit=ten'],
          ['limit', 'limit=1&limit=2'],
          ['status', 'status=done'],
          ['status', 'status=completed,'],
          ['status', 'status=Completed'],
          ['status', 'status=completed&status=failed'],
          ['cursor', 'cursor=not%20base64'],
          ['cursor', `cursor=${'A'.repeat(201)}`],
          ['cursor', 'cursor=a&cursor=b'],
        ].map(([field, query]) => [style, field!, query!] as const),
      ),
    )('refuses a bad query (%s style): %s in %s', async (style, field, query) => {
      const res = await gateway.call(`/v1/verify/file?${query}`, { style });
      expectFieldError(style, res, field);
      expect(gateway.bus.asked).toEqual([]);
    });
  });

  describe('GET /v1/verify/file/{jobId}/download', () => {
    async function signedPath(): Promise<string> {
      const data = payloadOf('current', await gateway.call(`/v1/verify/file/${JOB_ID}`)) as Record<
        string,
        string
      >;
      gateway.reset();
      return pathOf(data.direct_download_url!);
    }

    it.each([
      ['another job', (path: string) => path.replace(JOB_ID, '9f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90')],
      [
        'a later expiry',
        (path: string) => path.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 60}`),
      ],
      [
        'another signature',
        (path: string) =>
          path.replace(/signature=[0-9a-f]/, (m) =>
            m.endsWith('a') ? `${m.slice(0, -1)}b` : `${m.slice(0, -1)}a`,
          ),
      ],
    ])(
      'refuses a link changed to %s with 403 DOWNLOAD_LINK_INVALID, without a hop',
      async (_case, change) => {
        const path = change(await signedPath());
        for (const style of STYLES) {
          const res = await gateway.call(path, { key: null, style });
          expect(expectError(style, res, 403, 'DOWNLOAD_LINK_INVALID').message).toBe(
            'This download link is not valid',
          );
        }
        expect(gateway.bus.asked).toEqual([]);
      },
    );

    it('refuses a link without a signature with 400 naming it', async () => {
      const path = (await signedPath()).replace(/&signature=.*/, '');
      expectFieldError('current', await gateway.call(path, { key: null }), 'signature');
    });

    it('refuses an expired link, saying so', async () => {
      const past = Math.floor(Date.now() / 1000) - 10;
      const path = `/v1/verify/file/${JOB_ID}/download?expires=${past}&signature=${signDownload(SECRET, JOB_ID, past)}`;
      const res = await gateway.call(path, { key: null });
      expect(expectError('current', res, 403, 'DOWNLOAD_LINK_INVALID').message).toMatch(/expired/);
    });
  });

  describe('DELETE /v1/verify/file/{jobId}', () => {
    it.each(STYLES)('asks file-jobs to erase the job and confirms it (%s style)', async (style) => {
      gateway.bus.answer(Subjects.filesJobDelete, () => ({ jobId: JOB_ID, cancelled: false }));
      const res = await gateway.call(`/v1/verify/file/${JOB_ID}`, { method: 'DELETE', style });
      expect(payloadOf(style, res)).toEqual({ message: 'Job deleted with its files', job_id: JOB_ID });
      expect(gateway.bus.asked.map((a) => [a.subject, a.payload])).toEqual([
        [Subjects.filesJobDelete, { accountId: ACCOUNT, jobId: JOB_ID, mode: 'live' }],
      ]);
    });

    it('says so when the job was still running and was cancelled first', async () => {
      gateway.bus.answer(Subjects.filesJobDelete, () => ({ jobId: JOB_ID, cancelled: true }));
      const res = await gateway.call(`/v1/verify/file/${JOB_ID}`, { method: 'DELETE' });
      expect((payloadOf('current', res) as { message: string }).message).toMatch(
        /^Job cancelled and deleted with its files; what was verified stays charged/,
      );
    });

    it.each(STYLES)(
      'answers an unknown, foreign or malformed job 404 JOB_NOT_FOUND (%s style)',
      async (style) => {
        gateway.bus.answer(Subjects.filesJobDelete, () => {
          throw new DomainError('JOB_NOT_FOUND', 'Job not found');
        });
        expectError(
          style,
          await gateway.call(`/v1/verify/file/${JOB_ID}`, { method: 'DELETE', style }),
          404,
          'JOB_NOT_FOUND',
        );
        expectError(
          style,
          await gateway.call('/v1/verify/file/not-a-job', { method: 'DELETE', style }),
          404,
          'JOB_NOT_FOUND',
        );
        // The malformed id never left the gateway.
        expect(gateway.bus.asked).toHaveLength(1);
      },
    );
  });

  describe('a full file store', () => {
    // FILE_STORE_MAX_BYTES room for the result file already stored and 64 bytes more.
    let small: GatewayHarness;
    beforeAll(async () => {
      small = await GatewayHarness.start({
        env: { DOWNLOAD_SIGNING_SECRET: SECRET, FILE_STORE_MAX_BYTES: String(1024 + 64) },
      });
    });
    afterAll(async () => small?.close());

    it.each(STYLES)(
      'refuses an upload with 503 before storing it or asking file-jobs (%s style)',
      async (style) => {
        small.reset();
        small.jetStream.store.objects.clear();
        small.jetStream.store.objects.set('results/other.csv', Buffer.alloc(1024));
        const form = new FormData();
        form.append('file', new Blob(['email\na@example.com\n'.repeat(20)]), 'leads.csv');
        const res = await small.call('/v1/verify/file', { style, form });
        expect(expectError(style, res, 503, 'SERVICE_UNAVAILABLE').message).toMatch(/file store is full/);
        expect([...small.jetStream.store.objects.keys()]).toEqual(['results/other.csv']);
        expect(small.bus.asked).toEqual([]);
      },
    );
  });

  describe('POST /v1/verify/file/{jobId}/pause|resume|cancel', () => {
    it.each([
      ['pause', Subjects.filesJobPause, 'paused'],
      ['resume', Subjects.filesJobResume, 'running'],
      ['cancel', Subjects.filesJobCancel, 'cancelled'],
    ] as const)('%s asks file-jobs and answers the job status', async (action, subject, status) => {
      gateway.bus.answer(subject, () => makeJob({ status }));
      for (const style of STYLES) {
        const res = await gateway.call(`/v1/verify/file/${JOB_ID}/${action}`, { method: 'POST', style });
        expect(payloadOf(style, res)).toMatchObject(
          style === 'current' ? { task_id: JOB_ID, status } : { job_id: JOB_ID, status },
        );
      }
      expect(gateway.bus.asked.map((a) => [a.subject, a.payload])).toEqual([
        [subject, { accountId: ACCOUNT, jobId: JOB_ID, mode: 'live' }],
        [subject, { accountId: ACCOUNT, jobId: JOB_ID, mode: 'live' }],
      ]);
    });

    it.each(STYLES)("passes on file-jobs' JOB_NOT_FOUND as 404 code 4040 (%s style)", async (style) => {
      gateway.bus.answer(Subjects.filesJobPause, () => {
        throw new DomainError('JOB_NOT_FOUND', 'Job not found');
      });
      const res = await gateway.call(`/v1/verify/file/${JOB_ID}/pause`, { method: 'POST', style });
      expectError(style, res, 404, 'JOB_NOT_FOUND');
    });
  });
});
