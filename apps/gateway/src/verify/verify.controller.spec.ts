import { DomainError, Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeResult } from '../testing/factories';
import { ACCOUNT, GatewayHarness } from '../testing/gateway-harness';
import { expectError, expectFieldError, payloadOf, STYLES } from '../testing/replies';

// The verification routes over HTTP, the verifier stood in for: what is checked at the edge (without a hop),
// what is asked, and how the verifier's answers and refusals reach the caller in each style.

const BULK_MAX = 5;

describe('verification routes', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start({ env: { BULK_MAX_EMAILS: String(BULK_MAX) } });
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => {
    gateway.reset();
    gateway.bus.answer(Subjects.verifySingle, ({ email }) => makeResult({ email }));
    gateway.bus.answer(Subjects.verifyBulk, ({ emails }) => ({
      results: emails.map((email) => makeResult({ email })),
      creditsUsed: emails.length,
      processTimeMs: 80,
    }));
  });

  describe('POST /v1/verify/single', () => {
    it('asks the verifier with the defaults, and answers the result in each style', async () => {
      const current = await gateway.call('/v1/verify/single', { body: { email: 'jane.doe@example.com' } });
      expect(payloadOf('current', current)).toMatchObject({ email: 'jane.doe@example.com', status: 'valid' });
      expect(gateway.bus.asked).toEqual([
        {
          subject: Subjects.verifySingle,
          payload: {
            accountId: ACCOUNT,
            email: 'jane.doe@example.com',
            checkSmtp: false,
            forceRefresh: false,
          },
          requestId: current.headers.get('x-request-id'),
        },
      ]);
      const legacy = await gateway.call('/v1/verify/single', {
        style: 'legacy',
        body: { email: 'jane.doe@example.com', check_smtp: true, force_refresh: true },
      });
      expect(payloadOf('legacy', legacy)).toMatchObject({
        email: 'jane.doe@example.com',
        status: 'valid',
        result: {},
      });
      expect(gateway.bus.asked[1]?.payload).toMatchObject({ checkSmtp: true, forceRefresh: true });
    });

    it.each(STYLES)(
      'answers bad syntax with 400 INVALID_EMAIL without asking the verifier (%s style)',
      async (style) => {
        const res = await gateway.call('/v1/verify/single', { style, body: { email: 'a@@b.test' } });
        expectError(style, res, 400, 'INVALID_EMAIL');
        expect(gateway.bus.asked).toEqual([]);
      },
    );

    it('passes on the refusal of short credits as 402 (current) and 403 (legacy)', async () => {
      gateway.bus.answer(Subjects.verifySingle, () => {
        throw new DomainError('INSUFFICIENT_CREDITS', 'Not enough credits: 1 needed, 0 available');
      });
      const current = await gateway.call('/v1/verify/single', { body: { email: 'jane@example.com' } });
      expectError('current', current, 402, 'INSUFFICIENT_CREDITS');
      expect(current.json.code).toBe('4020');
      const legacy = await gateway.call('/v1/verify/single', {
        style: 'legacy',
        body: { email: 'jane@example.com' },
      });
      expectError('legacy', legacy, 403, 'INSUFFICIENT_CREDITS');
    });

    it('answers a verifier that is too slow with 504 TIMEOUT, and one that is absent with 503', async () => {
      gateway.bus.answer(Subjects.verifySingle, () => {
        throw new DomainError('SERVICE_UNAVAILABLE', 'The verifier service did not answer within 5000 ms', {
          cause: 'timeout',
        });
      });
      const slow = await gateway.call('/v1/verify/single', { body: { email: 'jane@example.com' } });
      expectError('current', slow, 504, 'TIMEOUT');
      gateway.bus.answer(Subjects.verifySingle, () => {
        throw new DomainError('SERVICE_UNAVAILABLE', 'The verifier is not available', {
          cause: 'no responders',
        });
      });
      const absent = await gateway.call('/v1/verify/single', { body: { email: 'jane@example.com' } });
      expectError('current', absent, 503, 'SERVICE_UNAVAILABLE');
    });

    it.each([
      ['email missing', {}, 'email'],
      ['email not a string', { email: 42 }, 'email'],
      ['check_smtp not a boolean', { email: 'jane@example.com', check_smtp: 'yes' }, 'check_smtp'],
    ])('refuses %s with 400 naming the field', async (_case, body, field) => {
      for (const style of STYLES) {
        expectFieldError(style, await gateway.call('/v1/verify/single', { style, body }), field);
      }
      expect(gateway.bus.asked).toEqual([]);
    });
  });

  describe('POST /v1/verify/bulk', () => {
    it('asks the verifier for the batch and answers it in each style', async () => {
      const emails = ['a@example.com', 'b@example.com'];
      const current = await gateway.call('/v1/verify/bulk', { body: { emails } });
      expect(payloadOf('current', current)).toMatchObject({
        total_emails: 2,
        credits_used: 2,
        process_time: 80,
      });
      expect(gateway.bus.asked[0]?.payload).toEqual({ accountId: ACCOUNT, emails, checkSmtp: false });
      const legacy = await gateway.call('/v1/verify/bulk', { style: 'legacy', body: { emails } });
      expect(payloadOf('legacy', legacy)).toMatchObject({ total_emails: 2, valid_emails: 2 });
    });

    it.each([0, BULK_MAX + 1])(
      'refuses %i addresses with 400 naming the field and the limit, without a hop',
      async (n) => {
        const emails = Array.from({ length: n }, (_, i) => `user${i}@example.com`);
        for (const style of STYLES) {
          const res = await gateway.call('/v1/verify/bulk', { style, body: { emails } });
          expectFieldError(style, res, 'emails');
          expect(res.json.error.message).toContain(`between 1 and ${BULK_MAX}`);
          if (style === 'legacy') expect(res.json.error.details).toEqual({ field: 'emails', max: BULK_MAX });
        }
        expect(gateway.bus.asked).toEqual([]);
      },
    );
  });

  describe('GET and POST /v1/verify/disposable', () => {
    it.each(STYLES)('answers from the gateway itself, free and without a hop (%s style)', async (style) => {
      const viaGet = await gateway.call('/v1/verify/disposable?email=someone@mailinator.com', { style });
      const viaPost = await gateway.call('/v1/verify/disposable', {
        style,
        body: { email: 'someone@mailinator.com' },
      });
      for (const res of [viaGet, viaPost]) {
        expect(payloadOf(style, res)).toEqual({
          email: 'someone@mailinator.com',
          domain: 'mailinator.com',
          is_disposable: true,
          checked_at: expect.any(String),
        });
      }
      expect(gateway.bus.asked).toEqual([]);
    });

    it('keeps an idle connection open for HTTP_KEEP_ALIVE_TIMEOUT_MS and says so in Keep-Alive', async () => {
      const res = await gateway.call('/v1/verify/disposable?email=someone@mailinator.com');
      expect(res.headers.get('connection')).toBe('keep-alive');
      expect(res.headers.get('keep-alive')).toBe('timeout=65');
    });

    it('sends JSON with its charset and exact length, no ETag, and no body to HEAD', async () => {
      const path = '/v1/verify/disposable?email=someone@mailinator.com';
      const get = await gateway.call(path);
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(get.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
      expect(get.headers.get('etag')).toBeNull();
      const head = await gateway.call(path, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
      // Conditional requests are answered in full, as there is no ETag to match.
      const conditionals: Array<Record<string, string>> = [
        { 'If-None-Match': '"x"' },
        { 'If-Modified-Since': new Date().toUTCString() },
      ];
      for (const conditional of conditionals) {
        const res = await gateway.call(path, { headers: conditional });
        expect(res.status).toBe(200);
        expect(payloadOf('current', res)).toMatchObject({ email: 'someone@mailinator.com' });
      }
    });

    it.each(STYLES)('refuses check_smtp with 400 naming it (%s style)', async (style) => {
      const res = await gateway.call('/v1/verify/disposable', {
        style,
        body: { email: 'someone@mailinator.com', check_smtp: true },
      });
      expectFieldError(style, res, 'check_smtp');
    });
  });
});
