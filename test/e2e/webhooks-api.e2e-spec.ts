import { MAX_WEBHOOKS_PER_ACCOUNT, type ResponseStyle } from '@emailverify/contracts';
import { type Account, type HttpReply, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const STYLES: ResponseStyle[] = ['current', 'legacy'];
const WEBHOOK_FIELDS = [
  'id',
  'url',
  'events',
  'is_active',
  'created_at',
  'updated_at',
  'last_delivery_status',
  'last_delivery_at',
  'last_error',
  'secret_rotated_at',
  'previous_secret_expires_at',
  'breaker',
];
/** The circuit breaker of a webhook no attempt has failed for. */
const CLOSED = { state: 'closed', retry_at: null, consecutive_failures: 0 };

/** The payload of a successful reply: the envelope's `data` (current) or the unwrapped body (legacy). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary reply shapes
function payloadOf(style: ResponseStyle, res: HttpReply): any {
  expect(res.status, res.text).toBe(200);
  expectRateLimitHeaders(res);
  if (style === 'legacy') {
    expect(res.json.success).toBeUndefined();
    return res.json;
  }
  expect(res.json).toMatchObject({ success: true, code: '0', message: expect.any(String) });
  return res.json.data;
}

function expectRateLimitHeaders(res: HttpReply): void {
  expect(res.headers.get('x-ratelimit-limit')).toBe('600'); // the "other" class
  expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(600);
  expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
}

/** A 400 INVALID_REQUEST that names `field`: in the message (current) and in `details.field` (legacy). */
function expectFieldError(style: ResponseStyle, res: HttpReply, field: string): void {
  expect(res.status, res.text).toBe(400);
  expectRateLimitHeaders(res);
  if (style === 'current') {
    expect(res.json).toEqual({
      success: false,
      code: '4000',
      message: expect.any(String),
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining(field) },
    });
  } else {
    expect(res.json).toEqual({
      error: {
        code: 'INVALID_REQUEST',
        message: expect.stringContaining(field),
        details: expect.objectContaining({ field }),
      },
    });
  }
}

function expectNotFound(style: ResponseStyle, res: HttpReply): void {
  expect(res.status, res.text).toBe(404);
  if (style === 'current') {
    expect(res.json).toEqual({
      success: false,
      code: '4040',
      message: expect.any(String),
      error: { code: 'WEBHOOK_NOT_FOUND', message: expect.any(String) },
    });
  } else {
    expect(res.json).toEqual({
      error: expect.objectContaining({ code: 'WEBHOOK_NOT_FOUND', message: expect.any(String) }),
    });
  }
}

describe('webhooks API: create, list, update, delete', () => {
  let suite: TestSuite;

  beforeAll(async () => {
    suite = await TestSuite.start({
      services: ['credits', 'webhooks'],
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
    });
  });
  afterAll(async () => suite?.stop());

  const create = (account: Account, body: unknown, style?: ResponseStyle) =>
    suite.call('/v1/webhooks', { key: account.apiKey, body, style });
  const list = (account: Account, style?: ResponseStyle) =>
    suite.call('/v1/webhooks', { key: account.apiKey, style });

  it.each(STYLES)(
    'creates a webhook with an https URL: every field and a whsec_ secret that is never returned again (%s style)',
    async (style) => {
      const account = await suite.createAccount();
      const res = await create(
        account,
        { url: 'https://hooks.example.com/emailverify', events: ['file.completed', 'file.failed'] },
        style,
      );
      const created = payloadOf(style, res);
      expect(Object.keys(created).sort()).toEqual([...WEBHOOK_FIELDS, 'secret'].sort());
      expect(created).toEqual({
        id: expect.any(String),
        url: 'https://hooks.example.com/emailverify',
        events: ['file.completed', 'file.failed'],
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        is_active: true,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        last_delivery_status: null,
        last_delivery_at: null,
        last_error: null,
        secret_rotated_at: null,
        previous_secret_expires_at: null,
        breaker: CLOSED,
      });
      expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

      // Never again: not in either style of the list, not in an update's reply.
      for (const s of STYLES) {
        const listed = await list(account, s);
        expect(payloadOf(s, listed).webhooks).toHaveLength(1);
        expect(listed.text).not.toContain(created.secret);
        expect(listed.text).not.toContain('"secret"');
      }
      const patched = await suite.call(`/v1/webhooks/${created.id}`, {
        method: 'PATCH',
        key: account.apiKey,
        body: { is_active: true },
        style,
      });
      expect(payloadOf(style, patched)).not.toHaveProperty('secret');
      expect(patched.text).not.toContain(created.secret);
    },
  );

  it('gives every webhook its own secret', async () => {
    const account = await suite.createAccount();
    const body = { url: 'https://hooks.example.com/emailverify', events: ['file.completed'] };
    const first = payloadOf('current', await create(account, body));
    const second = payloadOf('current', await create(account, body));
    expect(second.id).not.toBe(first.id);
    expect(second.secret).not.toBe(first.secret);
  });

  describe('refusals: 400 naming the field, nothing stored', () => {
    let account: Account;
    beforeAll(async () => {
      account = await suite.createAccount();
    });

    const refused: Array<[string, unknown, string]> = [
      ['an http URL', { url: 'http://hooks.example.com/x', events: ['file.completed'] }, 'url'],
      ['a non-https scheme', { url: 'ftp://hooks.example.com/x', events: ['file.completed'] }, 'url'],
      ['a relative URL', { url: '/hooks', events: ['file.completed'] }, 'url'],
      [
        'a URL with credentials',
        { url: 'https://user:secret@hooks.example.com/x', events: ['file.completed'] },
        'url',
      ],
      ['a private IP literal', { url: 'https://10.0.0.5/x', events: ['file.completed'] }, 'url'],
      ['a loopback IP literal', { url: 'https://127.0.0.1:8443/x', events: ['file.completed'] }, 'url'],
      ['a private IPv6 literal', { url: 'https://[fd00::1]/x', events: ['file.completed'] }, 'url'],
      ['empty events', { url: 'https://hooks.example.com/x', events: [] }, 'events'],
      ['an unsupported event', { url: 'https://hooks.example.com/x', events: ['file.started'] }, 'events'],
      [
        'verification.completed (not an event of the contract)',
        { url: 'https://hooks.example.com/x', events: ['file.completed', 'verification.completed'] },
        'events',
      ],
      [
        'events that are not a list',
        { url: 'https://hooks.example.com/x', events: 'file.completed' },
        'events',
      ],
      ['a missing url', { events: ['file.completed'] }, 'url'],
      [
        'an unknown field',
        { url: 'https://hooks.example.com/x', events: ['file.completed'], colour: 'red' },
        'colour',
      ],
    ];
    for (const style of STYLES) {
      it.each(refused)(`refuses %s (${style} style)`, async (_case, body, field) => {
        expectFieldError(style, await create(account, body, style), field);
      });
    }

    it('names the unsupported event', async () => {
      const res = await create(account, { url: 'https://hooks.example.com/x', events: ['file.started'] });
      expect(res.json.error.message).toContain('file.started');
    });

    it('stored none of them', async () => {
      expect(payloadOf('current', await list(account))).toEqual({ webhooks: [], total: 0 });
    });
  });

  it(`refuses webhook ${MAX_WEBHOOKS_PER_ACCOUNT + 1} of an account with 400 naming the limit, in both styles`, async () => {
    const account = await suite.createAccount();
    for (let i = 0; i < MAX_WEBHOOKS_PER_ACCOUNT; i++) {
      const res = await create(account, {
        url: `https://hooks.example.com/${i}`,
        events: ['file.completed'],
      });
      expect(res.status, res.text).toBe(200);
    }
    const body = { url: 'https://hooks.example.com/one-too-many', events: ['file.completed'] };
    const current = await create(account, body, 'current');
    expect(current.status, current.text).toBe(400);
    expect(current.json).toMatchObject({ success: false, code: '4000', error: { code: 'INVALID_REQUEST' } });
    expect(current.json.error.message).toContain(String(MAX_WEBHOOKS_PER_ACCOUNT));
    const legacy = await create(account, body, 'legacy');
    expect(legacy.status, legacy.text).toBe(400);
    expect(legacy.json.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(legacy.json.error.message).toContain(String(MAX_WEBHOOKS_PER_ACCOUNT));

    const listed = payloadOf('current', await list(account));
    expect(listed.total).toBe(MAX_WEBHOOKS_PER_ACCOUNT);
    expect(listed.webhooks).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);
    // Another account is not affected by this one's limit.
    const other = await suite.createAccount();
    expect((await create(other, body)).status).toBe(200);
  });

  it.each(STYLES)(
    'lists {webhooks, total} without secrets, last_delivery_* null before any delivery (%s style)',
    async (style) => {
      const account = await suite.createAccount();
      const a = payloadOf(
        'current',
        await create(account, { url: 'https://a.example.com/hook', events: ['file.completed'] }),
      );
      const b = payloadOf(
        'current',
        await create(account, { url: 'https://b.example.com/hook', events: ['file.failed'] }),
      );
      const listed = payloadOf(style, await list(account, style));
      expect(Object.keys(listed).sort()).toEqual(['total', 'webhooks']);
      expect(listed.total).toBe(2);
      const { secret: _a, ...aListed } = a;
      const { secret: _b, ...bListed } = b;
      expect([...listed.webhooks].sort((x, y) => x.url.localeCompare(y.url))).toEqual([aListed, bListed]);
      for (const webhook of listed.webhooks) {
        expect(Object.keys(webhook).sort()).toEqual([...WEBHOOK_FIELDS].sort());
        expect(webhook).toMatchObject({
          last_delivery_status: null,
          last_delivery_at: null,
          last_error: null,
        });
      }
    },
  );

  it('lists only the webhooks of the calling account', async () => {
    const mine = await suite.createAccount();
    const theirs = await suite.createAccount();
    await create(theirs, { url: 'https://theirs.example.com/hook', events: ['file.completed'] });
    expect(payloadOf('current', await list(mine))).toEqual({ webhooks: [], total: 0 });
  });

  it.each(STYLES)('PATCH changes url, events and is_active (%s style)', async (style) => {
    const account = await suite.createAccount();
    const created = payloadOf(
      'current',
      await create(account, { url: 'https://old.example.com/hook', events: ['file.completed'] }),
    );
    const patch = (body: unknown) =>
      suite.call(`/v1/webhooks/${created.id}`, { method: 'PATCH', key: account.apiKey, body, style });

    const moved = payloadOf(style, await patch({ url: 'https://new.example.com/hook' }));
    expect(moved).toMatchObject({
      id: created.id,
      url: 'https://new.example.com/hook',
      events: ['file.completed'],
    });
    expect(Object.keys(moved).sort()).toEqual([...WEBHOOK_FIELDS].sort());

    const resubscribed = payloadOf(style, await patch({ events: ['file.failed', 'file.completed'] }));
    expect([...resubscribed.events].sort()).toEqual(['file.completed', 'file.failed']);

    const paused = payloadOf(style, await patch({ is_active: false }));
    expect(paused).toMatchObject({ url: 'https://new.example.com/hook', is_active: false });
    expect(Date.parse(paused.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));
    expect(paused.created_at).toBe(created.created_at);

    const listed = payloadOf(style, await list(account, style)).webhooks;
    expect(listed).toEqual([paused]);

    const all = payloadOf(
      style,
      await patch({ url: 'https://third.example.com/hook', events: ['file.completed'], is_active: true }),
    );
    expect(all).toMatchObject({
      url: 'https://third.example.com/hook',
      events: ['file.completed'],
      is_active: true,
    });
  });

  it.each(STYLES)('PATCH refuses what create refuses, naming the field (%s style)', async (style) => {
    const account = await suite.createAccount();
    const created = payloadOf(
      'current',
      await create(account, { url: 'https://hooks.example.com/hook', events: ['file.completed'] }),
    );
    const patch = (body: unknown) =>
      suite.call(`/v1/webhooks/${created.id}`, { method: 'PATCH', key: account.apiKey, body, style });
    expectFieldError(style, await patch({ url: 'http://hooks.example.com/hook' }), 'url');
    expectFieldError(style, await patch({ url: 'https://10.0.0.5/x' }), 'url');
    expectFieldError(style, await patch({ events: [] }), 'events');
    expectFieldError(style, await patch({ is_active: 'no' }), 'is_active');
    expectFieldError(style, await patch({}), 'body');
    // Nothing changed.
    const { secret: _secret, ...unchanged } = created;
    expect(payloadOf('current', await list(account)).webhooks).toEqual([unchanged]);
  });

  it.each(STYLES)(
    'DELETE answers {message, webhook_id}; a second delete is 404 code 4040 (%s style)',
    async (style) => {
      const account = await suite.createAccount();
      const created = payloadOf(
        'current',
        await create(account, { url: 'https://hooks.example.com/hook', events: ['file.completed'] }),
      );
      const del = () =>
        suite.call(`/v1/webhooks/${created.id}`, { method: 'DELETE', key: account.apiKey, style });
      expect(payloadOf(style, await del())).toEqual({ message: expect.any(String), webhook_id: created.id });
      expect(payloadOf(style, await list(account, style))).toEqual({ webhooks: [], total: 0 });
      expectNotFound(style, await del());
    },
  );

  describe("another account's webhook and malformed ids: 404 code 4040", () => {
    let owner: Account;
    let stranger: Account;
    let foreignId: string;
    beforeAll(async () => {
      owner = await suite.createAccount();
      stranger = await suite.createAccount();
      foreignId = payloadOf(
        'current',
        await create(owner, { url: 'https://owner.example.com/hook', events: ['file.completed'] }),
      ).id;
    });

    const requests: Array<[string, (id: string) => string, unknown]> = [
      ['DELETE', (id) => `/v1/webhooks/${id}`, undefined],
      ['PATCH', (id) => `/v1/webhooks/${id}`, { is_active: false }],
      ['GET', (id) => `/v1/webhooks/${id}/deliveries`, undefined],
      [
        'POST',
        (id) => `/v1/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
        undefined,
      ],
    ];
    for (const style of STYLES) {
      for (const [method, path, body] of requests) {
        it(`${method} ${path('{id}')} (${style} style)`, async () => {
          for (const id of [
            foreignId,
            'not-a-uuid',
            '00000000-0000-4000-8000-000000000000',
            '1%20OR%201=1',
            'x'.repeat(300),
          ]) {
            const res = await suite.call(path(id), { method, key: stranger.apiKey, body, style });
            expectNotFound(style, res);
            expectRateLimitHeaders(res);
          }
        });
      }
    }

    it("left the owner's webhook as it was", async () => {
      const listed = payloadOf('current', await list(owner));
      expect(listed.total).toBe(1);
      expect(listed.webhooks[0]).toMatchObject({ id: foreignId, is_active: true });
    });
  });

  it.each(STYLES)('redelivering an unknown delivery is 404 code 4040 (%s style)', async (style) => {
    const account = await suite.createAccount();
    const created = payloadOf(
      'current',
      await create(account, { url: 'https://hooks.example.com/hook', events: ['file.completed'] }),
    );
    for (const deliveryId of ['00000000-0000-4000-8000-000000000000', 'not-a-delivery', 'y'.repeat(300)]) {
      const res = await suite.call(`/v1/webhooks/${created.id}/deliveries/${deliveryId}/redeliver`, {
        method: 'POST',
        key: account.apiKey,
        style,
      });
      expect(res.status, res.text).toBe(404);
      expect(res.json.error.code).toBe('NOT_FOUND');
      if (style === 'current') expect(res.json.code).toBe('4040');
    }
  });

  it.each(STYLES)('answers an empty delivery log for a fresh webhook (%s style)', async (style) => {
    const account = await suite.createAccount();
    const created = payloadOf(
      'current',
      await create(account, { url: 'https://hooks.example.com/hook', events: ['file.completed'] }),
    );
    const log = await suite.call(`/v1/webhooks/${created.id}/deliveries?limit=5`, {
      key: account.apiKey,
      style,
    });
    expect(payloadOf(style, log)).toEqual({ deliveries: [], next_cursor: null, breaker: CLOSED });
    expectFieldError(
      style,
      await suite.call(`/v1/webhooks/${created.id}/deliveries?limit=101`, { key: account.apiKey, style }),
      'limit',
    );
  });
});
