import { type Delivery, DomainError, Subjects, type Webhook } from '@emailverify/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT, GatewayHarness, KEYS } from '../testing/gateway-harness';
import { expectFieldError, payloadOf, STYLES } from '../testing/replies';

// The webhook routes over HTTP: the production pipeline in-process, the webhooks service stood in for.

const RATE_LIMIT_OTHER = 4321;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2hQX3JqJXpA=';
const WEBHOOK_ID = '3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34';

function makeWebhook(overrides: Partial<Webhook> = {}): Webhook {
  return {
    id: WEBHOOK_ID,
    accountId: ACCOUNT,
    url: 'https://hooks.example.com/emailverify',
    events: ['file.completed'],
    isActive: true,
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
    lastDeliveryStatus: null,
    lastDeliveryAt: null,
    lastError: null,
    secretRotatedAt: null,
    previousSecretExpiresAt: null,
    breaker: { state: 'closed', retryAt: null, consecutiveFailures: 0 },
    ...overrides,
  };
}

/** A webhook as a careless service might send it: with its secret. The presenters must never pass it on. */
const leaky = (webhook: Webhook): Webhook => ({ ...webhook, secret: SECRET }) as Webhook;

function makeDelivery(overrides: Partial<Delivery> = {}): Delivery {
  return {
    id: '9b2e4c71-5d3a-4f8e-b6a1-0c7d2e9f4a58',
    event: 'file.completed',
    jobId: '8f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90',
    status: 'success',
    attempts: [
      {
        at: '2026-11-22T10:02:13.100Z',
        httpStatus: 500,
        durationMs: 84,
        error: 'HTTP 500',
        responseBody: 'upstream unavailable',
      },
      { at: '2026-11-22T10:02:18.300Z', httpStatus: 200, durationMs: 61, error: null, responseBody: null },
    ],
    nextAttemptAt: null,
    createdAt: '2026-11-22T10:02:13.000Z',
    ...overrides,
  };
}

const webhookJson = {
  id: WEBHOOK_ID,
  url: 'https://hooks.example.com/emailverify',
  events: ['file.completed'],
  is_active: true,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
  last_delivery_status: null,
  last_delivery_at: null,
  last_error: null,
  secret_rotated_at: null,
  previous_secret_expires_at: null,
  breaker: { state: 'closed', retry_at: null, consecutive_failures: 0 },
};

/** A breaker opened after ten failed attempts, as the service reports it and as the reply shows it. */
const OPEN_BREAKER = {
  reported: { state: 'open', retryAt: '2026-11-23T09:00:30.000Z', consecutiveFailures: 10 },
  json: { state: 'open', retry_at: '2026-11-23T09:00:30.000Z', consecutive_failures: 10 },
} as const;

const deliveryJson = {
  id: '9b2e4c71-5d3a-4f8e-b6a1-0c7d2e9f4a58',
  event: 'file.completed',
  job_id: '8f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90',
  status: 'success',
  attempts: [
    {
      at: '2026-11-22T10:02:13.100Z',
      http_status: 500,
      duration_ms: 84,
      error: 'HTTP 500',
      response_body: 'upstream unavailable',
    },
    { at: '2026-11-22T10:02:18.300Z', http_status: 200, duration_ms: 61, error: null, response_body: null },
  ],
  next_attempt_at: null,
  created_at: '2026-11-22T10:02:13.000Z',
};

describe('webhook routes over HTTP (in-process gateway, stand-in bus)', () => {
  let gateway: GatewayHarness;
  let bus: GatewayHarness['bus'];
  let call: GatewayHarness['call'];

  beforeAll(async () => {
    gateway = await GatewayHarness.start({ env: { RATE_LIMIT_OTHER: String(RATE_LIMIT_OTHER) } });
    bus = gateway.bus;
    call = (path, options) => gateway.call(path, options);
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => gateway.reset());

  describe('POST /v1/webhooks', () => {
    beforeEach(() => {
      bus.answer(Subjects.webhooksCreate, ({ url, events }) => ({
        webhook: makeWebhook({ url, events: events as Webhook['events'] }),
        secret: SECRET,
      }));
    });

    it.each(STYLES)('answers 200 with every field and the secret (%s style)', async (style) => {
      const res = await call('/v1/webhooks', {
        style,
        body: { url: 'https://hooks.example.com/emailverify', events: ['file.completed'] },
      });
      const { id, url, events, ...rest } = webhookJson;
      // Every field of a webhook, in the documented order: the secret right after events.
      expect(JSON.stringify(payloadOf(style, res))).toBe(
        JSON.stringify({ id, url, events, secret: SECRET, ...rest }),
      );
      expect(bus.asked).toEqual([
        {
          subject: Subjects.webhooksCreate,
          payload: {
            accountId: ACCOUNT,
            url: 'https://hooks.example.com/emailverify',
            events: ['file.completed'],
          },
          requestId: res.headers.get('x-request-id'),
        },
      ]);
    });

    it("answers in the key's default style when no header asks otherwise", async () => {
      const res = await call('/v1/webhooks', {
        key: KEYS.legacy,
        body: { url: 'https://hooks.example.com/emailverify', events: ['file.completed'] },
      });
      expect(payloadOf('legacy', res)).toMatchObject({ id: WEBHOOK_ID, secret: SECRET });
    });

    it('is in the "other" rate class and sends the rate-limit headers', async () => {
      const res = await call('/v1/webhooks', {
        body: { url: 'https://hooks.example.com/emailverify', events: ['file.completed'] },
      });
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT_OTHER));
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(RATE_LIMIT_OTHER);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    });

    const shapeErrors: Array<[string, unknown, string]> = [
      ['url missing', { events: ['file.completed'] }, 'url'],
      ['url not a string', { url: 42, events: ['file.completed'] }, 'url'],
      ['url null', { url: null, events: ['file.completed'] }, 'url'],
      ['url over 2048 characters', { url: `https://a.example/${'x'.repeat(2031)}`, events: [] }, 'url'],
      ['events missing', { url: 'https://hooks.example.com/x' }, 'events'],
      ['events not an array', { url: 'https://hooks.example.com/x', events: 'file.completed' }, 'events'],
      [
        'events holding a number',
        { url: 'https://hooks.example.com/x', events: ['file.completed', 1] },
        'events',
      ],
      ['an unknown field', { url: 'https://hooks.example.com/x', events: [], secret: 'mine' }, 'secret'],
    ];
    for (const style of STYLES) {
      it.each(shapeErrors)(
        `refuses %s with 400 naming the field (${style} style)`,
        async (_case, body, field) => {
          const res = await call('/v1/webhooks', { style, rawBody: JSON.stringify(body) });
          expectFieldError(style, res, field);
          expect(bus.asked).toEqual([]);
        },
      );
    }

    it('accepts a url of exactly 2048 characters (the rest is for the webhooks service to judge)', async () => {
      const url = `https://a.example/${'x'.repeat(2048 - 'https://a.example/'.length)}`;
      expect(url).toHaveLength(2048);
      const res = await call('/v1/webhooks', { body: { url, events: ['file.completed'] } });
      expect(res.status).toBe(200);
    });

    it.each(STYLES)(
      "renders the webhooks service's INVALID_REQUEST as 400 naming its field (%s style)",
      async (style) => {
        bus.answer(Subjects.webhooksCreate, () => {
          throw new DomainError('INVALID_REQUEST', 'Only https addresses can receive webhooks', {
            field: 'url',
          });
        });
        const res = await call('/v1/webhooks', {
          style,
          body: { url: 'http://hooks.example.com/x', events: ['file.completed'] },
        });
        expectFieldError(style, res, 'url');
      },
    );

    it('keeps a refusal that already names its field as the service wrote it', async () => {
      bus.answer(Subjects.webhooksCreate, () => {
        throw new DomainError('INVALID_REQUEST', 'events: "file.started" is not a supported event', {
          field: 'events',
        });
      });
      const res = await call('/v1/webhooks', {
        body: { url: 'https://hooks.example.com/x', events: ['file.started'] },
      });
      expect(res.json.error.message).toBe('events: "file.started" is not a supported event');
    });
  });

  describe('GET /v1/webhooks', () => {
    it.each(STYLES)('lists the webhooks without secrets, with their total (%s style)', async (style) => {
      bus.answer(Subjects.webhooksList, () => ({
        webhooks: [
          leaky(makeWebhook()),
          leaky(
            makeWebhook({
              id: 'b1f4d2e8-0a6c-4e3b-8d5f-7c9a1e2b3f40',
              events: ['file.completed', 'file.failed'],
              isActive: false,
              lastDeliveryStatus: 'failed',
              lastDeliveryAt: '2026-11-23T09:00:00.000Z',
              lastError: 'HTTP 410: webhook deactivated',
              breaker: OPEN_BREAKER.reported,
            }),
          ),
        ],
        total: 2,
      }));
      const res = await call('/v1/webhooks', { style });
      expect(payloadOf(style, res)).toEqual({
        webhooks: [
          webhookJson,
          {
            ...webhookJson,
            id: 'b1f4d2e8-0a6c-4e3b-8d5f-7c9a1e2b3f40',
            events: ['file.completed', 'file.failed'],
            is_active: false,
            last_delivery_status: 'failed',
            last_delivery_at: '2026-11-23T09:00:00.000Z',
            last_error: 'HTTP 410: webhook deactivated',
            breaker: OPEN_BREAKER.json,
          },
        ],
        total: 2,
      });
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT_OTHER));
      expect(bus.asked).toEqual([
        {
          subject: Subjects.webhooksList,
          payload: { accountId: ACCOUNT },
          requestId: res.headers.get('x-request-id'),
        },
      ]);
    });

    it('refuses a request without a key (401) and never asks the webhooks service', async () => {
      const res = await call('/v1/webhooks', { key: null });
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ code: '4010', error: { code: 'INVALID_API_KEY' } });
      expect(bus.asked).toEqual([]);
    });
  });

  describe('PATCH /v1/webhooks/{webhookId}', () => {
    beforeEach(() => {
      bus.answer(Subjects.webhooksUpdate, ({ url, events, isActive }) =>
        leaky(
          makeWebhook({
            ...(url !== undefined ? { url } : {}),
            ...(events !== undefined ? { events: events as Webhook['events'] } : {}),
            ...(isActive !== undefined ? { isActive } : {}),
            updatedAt: '2026-11-22T12:00:00.000Z',
          }),
        ),
      );
    });

    it.each(STYLES)('changes url, events and is_active; no secret in the reply (%s style)', async (style) => {
      const res = await call(`/v1/webhooks/${WEBHOOK_ID}`, {
        method: 'PATCH',
        style,
        body: { url: 'https://new.example.com/hook', events: ['file.failed'], is_active: false },
      });
      expect(payloadOf(style, res)).toEqual({
        ...webhookJson,
        url: 'https://new.example.com/hook',
        events: ['file.failed'],
        is_active: false,
        updated_at: '2026-11-22T12:00:00.000Z',
      });
      expect(bus.asked).toEqual([
        {
          subject: Subjects.webhooksUpdate,
          payload: {
            accountId: ACCOUNT,
            webhookId: WEBHOOK_ID,
            url: 'https://new.example.com/hook',
            events: ['file.failed'],
            isActive: false,
          },
          requestId: res.headers.get('x-request-id'),
        },
      ]);
    });

    it('sends only the fields given', async () => {
      const res = await call(`/v1/webhooks/${WEBHOOK_ID}`, { method: 'PATCH', body: { is_active: true } });
      expect(res.status).toBe(200);
      expect(bus.asked[0]?.payload).toEqual({ accountId: ACCOUNT, webhookId: WEBHOOK_ID, isActive: true });
    });

    const shapeErrors: Array<[string, unknown, string]> = [
      ['is_active as a string', { is_active: 'yes' }, 'is_active'],
      ['is_active null', { is_active: null }, 'is_active'],
      ['url null', { url: null }, 'url'],
      ['events not an array', { events: 'file.failed' }, 'events'],
      ['an unknown field', { url: 'https://new.example.com/hook', secret: 'mine' }, 'secret'],
    ];
    for (const style of STYLES) {
      it.each(shapeErrors)(
        `refuses %s with 400 naming the field (${style} style)`,
        async (_case, body, field) => {
          const res = await call(`/v1/webhooks/${WEBHOOK_ID}`, { method: 'PATCH', style, body });
          expectFieldError(style, res, field);
          expect(bus.asked).toEqual([]);
        },
      );
    }
  });

  describe('DELETE /v1/webhooks/{webhookId}', () => {
    it.each(STYLES)('answers {message, webhook_id} (%s style)', async (style) => {
      bus.answer(Subjects.webhooksDelete, ({ webhookId }) => ({ webhookId }));
      const res = await call(`/v1/webhooks/${WEBHOOK_ID}`, { method: 'DELETE', style });
      expect(payloadOf(style, res)).toEqual({ message: 'Webhook deleted', webhook_id: WEBHOOK_ID });
      expect(bus.asked).toEqual([
        {
          subject: Subjects.webhooksDelete,
          payload: { accountId: ACCOUNT, webhookId: WEBHOOK_ID },
          requestId: res.headers.get('x-request-id'),
        },
      ]);
    });
  });

  describe('GET /v1/webhooks/{webhookId}/deliveries', () => {
    beforeEach(() => {
      bus.answer(Subjects.webhooksDeliveryList, () => ({
        deliveries: [makeDelivery()],
        nextCursor: 'opaque-cursor-2',
        breaker: OPEN_BREAKER.reported,
      }));
    });

    it.each(STYLES)(
      'answers a page of deliveries, the next cursor and the breaker (%s style)',
      async (style) => {
        const res = await call(`/v1/webhooks/${WEBHOOK_ID}/deliveries`, { style });
        expect(payloadOf(style, res)).toEqual({
          deliveries: [deliveryJson],
          next_cursor: 'opaque-cursor-2',
          breaker: OPEN_BREAKER.json,
        });
        expect(bus.asked).toEqual([
          {
            subject: Subjects.webhooksDeliveryList,
            payload: { accountId: ACCOUNT, webhookId: WEBHOOK_ID, limit: 20 },
            requestId: res.headers.get('x-request-id'),
          },
        ]);
      },
    );

    it('passes limit and cursor on', async () => {
      const res = await call(`/v1/webhooks/${WEBHOOK_ID}/deliveries?limit=100&cursor=opaque-cursor-2`);
      expect(res.status).toBe(200);
      expect(bus.asked[0]?.payload).toEqual({
        accountId: ACCOUNT,
        webhookId: WEBHOOK_ID,
        limit: 100,
        cursor: 'opaque-cursor-2',
      });
    });

    const badQueries: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=1e1', 'limit'],
      ['limit=0x10', 'limit'],
      ['limit=%205', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['page=2', 'page'],
    ];
    for (const style of STYLES) {
      it.each(badQueries)(`refuses ?%s with 400 naming the field (${style} style)`, async (query, field) => {
        const res = await call(`/v1/webhooks/${WEBHOOK_ID}/deliveries?${query}`, { style });
        expectFieldError(style, res, field);
        expect(bus.asked).toEqual([]);
      });
    }
  });

  describe('POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', () => {
    it.each(STYLES)('answers the delivery, due again (%s style)', async (style) => {
      bus.answer(Subjects.webhooksRedeliver, () =>
        makeDelivery({ status: 'pending', nextAttemptAt: '2026-11-22T11:30:00.000Z' }),
      );
      const res = await call(`/v1/webhooks/${WEBHOOK_ID}/deliveries/${deliveryJson.id}/redeliver`, {
        method: 'POST',
        style,
      });
      expect(payloadOf(style, res)).toEqual({
        ...deliveryJson,
        status: 'pending',
        next_attempt_at: '2026-11-22T11:30:00.000Z',
      });
      expect(bus.asked).toEqual([
        {
          subject: Subjects.webhooksRedeliver,
          payload: { accountId: ACCOUNT, webhookId: WEBHOOK_ID, deliveryId: deliveryJson.id },
          requestId: res.headers.get('x-request-id'),
        },
      ]);
    });
  });

  describe('POST /v1/webhooks/{webhookId}/rotate-secret', () => {
    it.each(STYLES)('answers the webhook with its new secret and the overlap (%s style)', async (style) => {
      const rotated = {
        secretRotatedAt: '2026-11-23T09:00:00.000Z',
        previousSecretExpiresAt: '2026-11-24T09:00:00.000Z',
      };
      bus.answer(Subjects.webhooksRotateSecret, () => ({ webhook: makeWebhook(rotated), secret: SECRET }));
      const res = await call(`/v1/webhooks/${WEBHOOK_ID}/rotate-secret`, { method: 'POST', style });
      expect(res.status).toBe(200);
      expect(payloadOf(style, res)).toEqual({
        ...webhookJson,
        secret: SECRET,
        secret_rotated_at: rotated.secretRotatedAt,
        previous_secret_expires_at: rotated.previousSecretExpiresAt,
      });
      expect(bus.asked).toEqual([
        {
          subject: Subjects.webhooksRotateSecret,
          payload: { accountId: ACCOUNT, webhookId: WEBHOOK_ID },
          requestId: res.headers.get('x-request-id'),
        },
      ]);
    });
  });

  describe('ids that are not webhooks of the account', () => {
    const routes: Array<[string, string, unknown]> = [
      ['POST', '/v1/webhooks/{id}/rotate-secret', undefined],
      ['PATCH', '/v1/webhooks/{id}', { is_active: false }],
      ['DELETE', '/v1/webhooks/{id}', undefined],
      ['GET', '/v1/webhooks/{id}/deliveries', undefined],
      ['POST', `/v1/webhooks/{id}/deliveries/${deliveryJson.id}/redeliver`, undefined],
    ];

    beforeEach(() => {
      const notFound = () => {
        throw new DomainError('WEBHOOK_NOT_FOUND', 'No such webhook');
      };
      bus.answer(Subjects.webhooksUpdate, notFound);
      bus.answer(Subjects.webhooksDelete, notFound);
      bus.answer(Subjects.webhooksRotateSecret, notFound);
      bus.answer(Subjects.webhooksDeliveryList, notFound);
      bus.answer(Subjects.webhooksRedeliver, notFound);
    });

    for (const [method, template, body] of routes) {
      it(`${method} ${template}: the webhooks service's WEBHOOK_NOT_FOUND is 404 code 4040 in both styles`, async () => {
        const current = await call(template.replace('{id}', WEBHOOK_ID), { method, body });
        expect(current.status).toBe(404);
        expect(current.json).toEqual({
          success: false,
          code: '4040',
          message: 'Webhook not found',
          error: { code: 'WEBHOOK_NOT_FOUND', message: 'No such webhook' },
        });
        expect(bus.asked[0]?.payload).toMatchObject({ accountId: ACCOUNT, webhookId: WEBHOOK_ID });

        const legacy = await call(template.replace('{id}', WEBHOOK_ID), { method, body, style: 'legacy' });
        expect(legacy.status).toBe(404);
        expect(legacy.json).toEqual({ error: { code: 'WEBHOOK_NOT_FOUND', message: 'No such webhook' } });
      });

      it(`${method} ${template}: a malformed id is 404 code 4040 in both styles, answered without a hop`, async () => {
        for (const id of ['not-a-uuid', 'x'.repeat(300), `${WEBHOOK_ID}0`, '1%20OR%201=1']) {
          const current = await call(template.replace('{id}', id), { method, body });
          expect(current.status).toBe(404);
          expect(current.json).toMatchObject({
            success: false,
            code: '4040',
            error: { code: 'WEBHOOK_NOT_FOUND', message: expect.stringContaining('not found') },
          });
          const legacy = await call(template.replace('{id}', id), { method, body, style: 'legacy' });
          expect(legacy.status).toBe(404);
          expect(legacy.json).toEqual({
            error: { code: 'WEBHOOK_NOT_FOUND', message: expect.stringContaining('not found') },
          });
        }
        expect(bus.asked).toEqual([]);
      });
    }

    it.each(STYLES)('a malformed delivery id is 404 code 4040 without a hop (%s style)', async (style) => {
      const res = await call(`/v1/webhooks/${WEBHOOK_ID}/deliveries/${'y'.repeat(300)}/redeliver`, {
        method: 'POST',
        style,
      });
      expect(res.status).toBe(404);
      if (style === 'current') expect(res.json).toMatchObject({ code: '4040', error: { code: 'NOT_FOUND' } });
      else expect(res.json.error.code).toBe('NOT_FOUND');
      expect(bus.asked).toEqual([]);
    });
  });

  it('answers 503 in both styles when the webhooks service does not answer', async () => {
    bus.answer(Subjects.webhooksList, () => {
      throw new DomainError(
        'SERVICE_UNAVAILABLE',
        'The webhooks service is not available; try again shortly',
      );
    });
    const current = await call('/v1/webhooks');
    expect(current.status).toBe(503);
    expect(current.json).toMatchObject({ code: '1000', error: { code: 'SERVICE_UNAVAILABLE' } });
    const legacy = await call('/v1/webhooks', { style: 'legacy' });
    expect(legacy.status).toBe(503);
    expect(legacy.json.error.code).toBe('SERVICE_UNAVAILABLE');
  });
});
