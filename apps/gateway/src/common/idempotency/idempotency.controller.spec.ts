import { randomUUID } from 'node:crypto';
import { DomainError, Subjects } from '@emailverify/contracts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { JOB_ID, makeJob, makeResult } from '../../testing/factories';
import { type CallOptions, GatewayHarness, type Reply } from '../../testing/gateway-harness';
import { expectError, expectFieldError, payloadOf, STYLES } from '../../testing/replies';

// Idempotency-Key over HTTP, on the in-process store (one gateway): replays, refusals, what frees a key, and
// uploads, in both styles. Two gateways sharing Redis: test/e2e/idempotency.e2e-spec.ts.

const WEBHOOK_ID = '3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34';

/** A promise and its resolver, to hold a request in flight. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('Idempotency-Key', () => {
  let gateway: GatewayHarness;
  const key = () => randomUUID();
  const single = (idempotencyKey: string | undefined, options: CallOptions = {}) =>
    gateway.call('/v1/verify/single', {
      body: { email: 'jane@example.com' },
      ...options,
      headers: {
        ...(idempotencyKey !== undefined ? { 'Idempotency-Key': idempotencyKey } : {}),
        ...options.headers,
      },
    });
  const verifications = () => gateway.bus.asked.filter((a) => a.subject === Subjects.verifySingle).length;

  beforeAll(async () => {
    gateway = await GatewayHarness.start();
  });
  afterAll(async () => gateway?.close());
  beforeEach(() => {
    gateway.reset();
    gateway.bus.answer(Subjects.verifySingle, ({ email }) => makeResult({ email }));
  });

  it.each(STYLES)(
    'replays the first reply to a repeat, without running it again (%s style)',
    async (style) => {
      const k = key();
      const first = await single(k, { style });
      expect(payloadOf(style, first)).toBeDefined();
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await single(k, { style });
      expect(again.status).toBe(first.status);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      // The repeat is a request of its own: its id and rate-limit window are its own.
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(
        Number(first.headers.get('x-ratelimit-remaining')) - 1,
      );
      expect(verifications()).toBe(1);
    },
  );

  it('counts what became of each request with a key on /metrics', async () => {
    const count = async (outcome: string) => {
      const text = await (await fetch(gateway.url('/metrics'))).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('emailverify_idempotency_requests_total{') && l.includes(`outcome="${outcome}"`),
        );
      return Number(line?.split(' ').pop());
    };
    const [first, replayed, reused] = [await count('first'), await count('replayed'), await count('reused')];
    const k = key();
    await single(k);
    await single(k);
    await single(k, { body: { email: 'john@example.com' } });
    expect(await count('first')).toBe(first + 1);
    expect(await count('replayed')).toBe(replayed + 1);
    expect(await count('reused')).toBe(reused + 1);
  });

  it('takes the key as a structured-field string too: "k" and k are one key', async () => {
    const k = key();
    await single(k);
    const quoted = await single(`"${k}"`);
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
    expect(verifications()).toBe(1);
  });

  it('runs every request without a key, and ignores a key on a GET', async () => {
    await single(undefined);
    const again = await single(undefined);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(verifications()).toBe(2);
    const k = key();
    for (let i = 0; i < 2; i++) {
      const res = await gateway.call('/v1/verify/disposable?email=a@example.com', {
        headers: { 'Idempotency-Key': k },
      });
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
  });

  it.each(STYLES)('refuses the key with another body, path or style with 422 (%s style)', async (style) => {
    const k = key();
    await single(k, { style });
    const otherBody = await single(k, { style, body: { email: 'john@example.com' } });
    const error = expectError(style, otherBody, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(error.message).toMatch(/different request/);
    const otherPath = await gateway.call('/v1/verify/disposable', {
      style,
      body: { email: 'jane@example.com' },
      headers: { 'Idempotency-Key': k },
    });
    expectError(style, otherPath, 422, 'IDEMPOTENCY_KEY_REUSED');
    const otherStyle = await single(k, { style: style === 'current' ? 'legacy' : 'current' });
    expect(otherStyle.status).toBe(422);
    expect(verifications()).toBe(1);
    // The key still answers its own request.
    expect((await single(k, { style })).headers.get('idempotent-replayed')).toBe('true');
  });

  it.each(STYLES)('refuses a malformed key with 400 naming the header (%s style)', async (style) => {
    for (const bad of ['k'.repeat(256), 'clé', '"unterminated\\"']) {
      expectFieldError(style, await single(bad, { style }), 'Idempotency-Key');
    }
    expect(verifications()).toBe(0);
  });

  it.each(STYLES)(
    'answers a repeat while the first is served with 409 and Retry-After (%s style)',
    async (style) => {
      const { opened, open } = gate();
      let arrived!: () => void;
      const asked = new Promise<void>((resolve) => (arrived = resolve));
      gateway.bus.answer(Subjects.verifySingle, async ({ email }) => {
        arrived();
        await opened;
        return makeResult({ email });
      });
      const k = key();
      const first = single(k, { style });
      await asked;
      const busy = await single(k, { style });
      const error = expectError(style, busy, 409, 'IDEMPOTENCY_KEY_IN_USE');
      expect(busy.headers.get('retry-after')).toBe('1');
      if (style === 'legacy') expect(error.retry_after).toBe(1);
      open();
      expect((await first).status).toBe(200);
      expect((await single(k, { style })).headers.get('idempotent-replayed')).toBe('true');
      expect(verifications()).toBe(1);
    },
  );

  it.each(STYLES)('frees the key after a 5xx, so a retry runs (%s style)', async (style) => {
    gateway.bus.answer(Subjects.verifySingle, () => {
      throw new DomainError('SERVICE_UNAVAILABLE', 'The verifier is not available', {
        cause: 'no responders',
      });
    });
    const k = key();
    expectError(style, await single(k, { style }), 503, 'SERVICE_UNAVAILABLE');
    gateway.bus.answer(Subjects.verifySingle, ({ email }) => makeResult({ email }));
    const retry = await single(k, { style });
    expect(payloadOf(style, retry)).toBeDefined();
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(verifications()).toBe(2);
  });

  it('keeps a 4xx outcome and replays it: 402 in the current style, 403 in the legacy one', async () => {
    gateway.bus.answer(Subjects.verifySingle, () => {
      throw new DomainError('INSUFFICIENT_CREDITS', 'Not enough credits: 1 needed, 0 available');
    });
    for (const [style, status] of [
      ['current', 402],
      ['legacy', 403],
    ] as const) {
      const k = key();
      const first = await single(k, { style });
      expectError(style, first, status, 'INSUFFICIENT_CREDITS');
      gateway.bus.answer(Subjects.verifySingle, ({ email }) => makeResult({ email }));
      const again = await single(k, { style });
      expect(again.status).toBe(status);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      gateway.bus.answer(Subjects.verifySingle, () => {
        throw new DomainError('INSUFFICIENT_CREDITS', 'Not enough credits: 1 needed, 0 available');
      });
    }
    expect(verifications()).toBe(2);
  });

  it.each(STYLES)('replays a DELETE (%s style)', async (style) => {
    gateway.bus.answer(Subjects.webhooksDelete, ({ webhookId }) => ({ webhookId }));
    const k = key();
    const call = () =>
      gateway.call(`/v1/webhooks/${WEBHOOK_ID}`, {
        method: 'DELETE',
        style,
        headers: { 'Idempotency-Key': k },
      });
    const first = await call();
    expect(payloadOf(style, first)).toEqual({ message: 'Webhook deleted', webhook_id: WEBHOOK_ID });
    const again = await call();
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(gateway.bus.asked.filter((a) => a.subject === Subjects.webhooksDelete)).toHaveLength(1);
  });

  describe('on uploads', () => {
    const uploads = () => [...gateway.jetStream.store.objects.keys()].filter((n) => n.startsWith('uploads/'));
    const upload = (
      k: string,
      style: 'current' | 'legacy',
      content = 'email\na@example.com\n',
      name = 'leads.csv',
    ) => {
      const form = new FormData();
      form.append('file', new Blob([content]), name);
      form.append('check_smtp', 'true');
      return gateway.call('/v1/verify/file', { style, form, headers: { 'Idempotency-Key': k } });
    };

    beforeEach(() => {
      gateway.jetStream.store.objects.clear();
      gateway.bus.answer(Subjects.filesJobCreate, (request) =>
        makeJob({ status: 'pending', fileName: request.fileName, fileSize: request.fileSize }),
      );
    });

    it.each(STYLES)(
      'replays the job of a repeated upload and stores its file once (%s style)',
      async (style) => {
        const k = key();
        const first = await upload(k, style);
        const job = payloadOf(style, first) as Record<string, unknown>;
        expect(job[style === 'current' ? 'task_id' : 'job_id']).toBe(JOB_ID);
        expect(uploads()).toHaveLength(1);
        const again = await upload(k, style);
        expect(again.text).toBe(first.text);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(uploads()).toHaveLength(1);
        expect(gateway.bus.asked.filter((a) => a.subject === Subjects.filesJobCreate)).toHaveLength(1);
      },
    );

    it.each(STYLES)(
      'refuses the key with another file, name or field with 422, storing nothing (%s style)',
      async (style) => {
        const k = key();
        await upload(k, style);
        expectError(style, await upload(k, style, 'email\nb@example.com\n'), 422, 'IDEMPOTENCY_KEY_REUSED');
        expectError(style, await upload(k, style, undefined, 'other.csv'), 422, 'IDEMPOTENCY_KEY_REUSED');
        expect(uploads()).toHaveLength(1);
        expect(gateway.bus.asked.filter((a) => a.subject === Subjects.filesJobCreate)).toHaveLength(1);
      },
    );

    it('frees the key when the job could not be made (5xx), and the retry stores the file once', async () => {
      gateway.bus.answer(Subjects.filesJobCreate, () => {
        throw new DomainError('SERVICE_UNAVAILABLE', 'file-jobs is not available', {
          cause: 'no responders',
        });
      });
      const k = key();
      expect((await upload(k, 'current')).status).toBe(503);
      expect(uploads()).toEqual([]);
      gateway.bus.answer(Subjects.filesJobCreate, (request) =>
        makeJob({ status: 'pending', fileName: request.fileName, fileSize: request.fileSize }),
      );
      expect((await upload(k, 'current')).status).toBe(200);
      expect(uploads()).toHaveLength(1);
    });
  });
});

describe('Idempotency-Key limits', () => {
  const MAX_KEYS = 3;
  const TTL_HOURS = 1;
  let gateway: GatewayHarness;
  const call = (k: string, body: unknown, style?: 'current' | 'legacy'): Promise<Reply> =>
    gateway.call('/v1/verify/bulk', { style, body, headers: { 'Idempotency-Key': k } });

  beforeAll(async () => {
    gateway = await GatewayHarness.start({
      env: {
        IDEMPOTENCY_MAX_KEYS: String(MAX_KEYS),
        IDEMPOTENCY_TTL_HOURS: String(TTL_HOURS),
        IDEMPOTENCY_MAX_REPLY_BYTES: '2048',
      },
    });
    gateway.bus.answer(Subjects.verifyBulk, ({ emails }) => ({
      results: emails.map((email) => makeResult({ email })),
      creditsUsed: emails.length,
      processTimeMs: 80,
    }));
  });
  afterAll(async () => gateway?.close());
  afterEach(() => vi.useRealTimers());

  const bulks = () => gateway.bus.asked.filter((a) => a.subject === Subjects.verifyBulk).length;

  it("refuses a new key beyond the account's maximum with 429 until the oldest expires, in both styles", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const one = { emails: ['a@example.com'] };
    for (let i = 0; i < MAX_KEYS; i++) {
      expect((await call(`live-${i}`, one)).status).toBe(200);
      vi.setSystemTime(start + (i + 1) * 60_000);
    }
    for (const style of STYLES) {
      const refused = await call('one-too-many', one, style);
      const error = expectError(style, refused, 429, 'IDEMPOTENCY_KEY_LIMIT');
      expect(error.message).toMatch(/3 live Idempotency-Keys/);
      // The oldest key was made 3 minutes ago and lives an hour.
      expect(refused.headers.get('retry-after')).toBe(String(TTL_HOURS * 3600 - 3 * 60));
      if (style === 'legacy') expect(error.retry_after).toBe(TTL_HOURS * 3600 - 3 * 60);
    }
    // The live keys still replay; a request without a key still runs.
    expect((await call('live-0', one)).headers.get('idempotent-replayed')).toBe('true');
    expect((await gateway.call('/v1/verify/bulk', { body: one })).status).toBe(200);
    // Once the oldest has expired, its place is free, and its request runs again as a new one.
    vi.setSystemTime(start + TTL_HOURS * 3_600_000);
    const replaced = await call('one-too-many', one);
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('idempotent-replayed')).toBeNull();
    const before = bulks();
    const expired = await call('live-0', one);
    expect(expired.status).toBe(429); // live-1, live-2 and one-too-many hold the places now
    expect(bulks()).toBe(before);
  });

  it('frees the key of a reply too large to keep, so the repeat runs again', async () => {
    const many = { emails: Array.from({ length: 20 }, (_, i) => `user${i}@example.com`) };
    const k = `large-${randomUUID()}`;
    // Expiry of the previous test's keys: this account has room again.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * TTL_HOURS * 3_600_000);
    const first = await call(k, many);
    expect(first.status).toBe(200);
    expect(first.text.length).toBeGreaterThan(2048);
    const before = bulks();
    const again = await call(k, many);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(bulks()).toBe(before + 1);
  });
});

describe('Idempotency-Key when its store cannot be reached', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    // Nothing listens on port 1: every Redis command fails (the rate limits then let requests through).
    gateway = await GatewayHarness.start({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    gateway.bus.answer(Subjects.verifySingle, ({ email }) => makeResult({ email }));
  });
  afterAll(async () => gateway?.close());
  beforeEach(() => gateway.reset());

  it.each(STYLES)(
    'refuses a request with a key with 503 rather than risk running it twice (%s style)',
    async (style) => {
      const res = await gateway.call('/v1/verify/single', {
        style,
        body: { email: 'jane@example.com' },
        headers: { 'Idempotency-Key': randomUUID() },
      });
      const error = expectError(style, res, 503, 'SERVICE_UNAVAILABLE');
      expect(error.message).toMatch(/Idempotency-Key could not be checked/);
      expect(gateway.bus.asked.filter((a) => a.subject === Subjects.verifySingle)).toHaveLength(0);
      // Without a key the request is served as ever.
      expect(
        (await gateway.call('/v1/verify/single', { style, body: { email: 'jane@example.com' } })).status,
      ).toBe(200);
    },
  );
});
