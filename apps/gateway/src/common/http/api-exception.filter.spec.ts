import { DomainError, Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayHarness } from '../../testing/gateway-harness';
import { expectError, STYLES } from '../../testing/replies';

// The one exception filter: every failure, wherever it starts (a service over NATS, the body parser, the
// validation pipe, multer, an unknown route, a bug), leaves in the caller's style with its catalogued status.

describe('ApiExceptionFilter', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start({ env: { JSON_BODY_LIMIT_BYTES: '1024', FILE_MAX_BYTES: '1024' } });
  });
  afterAll(async () => gateway?.close());
  beforeEach(() => gateway.reset());

  const failWith = (error: Error) =>
    gateway.bus.answer(Subjects.creditsBalanceGet, () => {
      throw error;
    });

  it('renders INSUFFICIENT_CREDITS as 402 code 4020 in the current style and 403 in the legacy style', async () => {
    failWith(new DomainError('INSUFFICIENT_CREDITS', 'Not enough credits: 1 needed, 0 available'));
    const current = await gateway.call('/v1/credits', { style: 'current' });
    expect(current.status).toBe(402);
    expect(current.json).toEqual({
      success: false,
      code: '4020',
      message: 'Insufficient credits',
      error: { code: 'INSUFFICIENT_CREDITS', message: 'Not enough credits: 1 needed, 0 available' },
    });
    const legacy = await gateway.call('/v1/credits', { style: 'legacy' });
    expect(legacy.status).toBe(403);
    expect(legacy.json).toEqual({
      error: { code: 'INSUFFICIENT_CREDITS', message: 'Not enough credits: 1 needed, 0 available' },
    });
  });

  it('keeps details in the legacy style only, lifting retry_after out and leaving the internal cause behind', async () => {
    failWith(
      new DomainError('INVALID_REQUEST', 'emails must hold between 1 and 100 addresses', {
        field: 'emails',
        max: 100,
        retry_after: 7,
        cause: 'internal',
      }),
    );
    const legacy = await gateway.call('/v1/credits', { style: 'legacy' });
    expect(legacy.status).toBe(400);
    expect(legacy.json).toEqual({
      error: {
        code: 'INVALID_REQUEST',
        message: 'emails must hold between 1 and 100 addresses',
        details: { field: 'emails', max: 100 },
        retry_after: 7,
      },
    });
    const current = await gateway.call('/v1/credits', { style: 'current' });
    expect(current.json.error).toEqual({
      code: 'INVALID_REQUEST',
      message: 'emails must hold between 1 and 100 addresses',
    });
  });

  it('drops details that were only the cause', async () => {
    failWith(
      new DomainError('SERVICE_UNAVAILABLE', 'The credits service is not available', { cause: 'timeout' }),
    );
    const legacy = await gateway.call('/v1/credits', { style: 'legacy' });
    expect(legacy.status).toBe(503);
    expect(legacy.json).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'The credits service is not available' },
    });
  });

  it.each(STYLES)(
    'answers an unexpected error with 500 and an error id, logged with the error, never its text (%s style)',
    async (style) => {
      failWith(new Error('connection pool exhausted'));
      const res = await gateway.call('/v1/credits', { style });
      const error = expectError(style, res, 500, 'INTERNAL_ERROR');
      const errorId = /error id ([0-9a-f-]{36})/.exec(error.message)?.[1];
      expect(errorId).toBeDefined();
      expect(res.text).not.toContain('connection pool exhausted');
      const logged = gateway.logs.find((line) => line.errorId === errorId);
      expect(logged).toMatchObject({ msg: 'unhandled error', path: '/v1/credits' });
      expect(JSON.stringify(logged)).toContain('connection pool exhausted');
    },
  );

  it.each(STYLES)('answers an unknown route with 404 NOT_FOUND naming it (%s style)', async (style) => {
    const res = await gateway.call('/v1/nothing/here', { style });
    expect(expectError(style, res, 404, 'NOT_FOUND').message).toMatch(
      /^No such endpoint: GET .*\/nothing\/here$/,
    );
  });

  it.each(STYLES)('answers malformed JSON with 400 INVALID_REQUEST (%s style)', async (style) => {
    const res = await gateway.call('/v1/verify/single', { style, rawBody: '{"email": ' });
    expect(expectError(style, res, 400, 'INVALID_REQUEST').message).toMatch(/^Malformed JSON/);
  });

  it.each(STYLES)('answers a body over the limit with 413 code 4130 (%s style)', async (style) => {
    const res = await gateway.call('/v1/verify/single', {
      style,
      body: { email: `${'a'.repeat(2000)}@x.test` },
    });
    expectError(style, res, 413, 'PAYLOAD_TOO_LARGE');
    if (style === 'current') expect(res.json.code).toBe('4130');
    expect(gateway.bus.asked).toEqual([]);
  });

  it.each(STYLES)(
    'answers a file over the upload limit with 413 and keeps nothing (%s style)',
    async (style) => {
      const form = new FormData();
      form.append('file', new Blob(['email\n', 'a@example.com\n'.repeat(200)]), 'big.csv');
      const res = await gateway.call('/v1/verify/file', { style, form });
      expectError(style, res, 413, 'PAYLOAD_TOO_LARGE');
      expect(gateway.jetStream.store.objects.size).toBe(0);
      expect(gateway.bus.asked).toEqual([]);
    },
  );

  it.each(STYLES)('names the field a DTO refuses, with 400 INVALID_REQUEST (%s style)', async (style) => {
    const res = await gateway.call('/v1/verify/single', {
      style,
      body: { email: 'jane@example.com', extra: 1 },
    });
    const error = expectError(style, res, 400, 'INVALID_REQUEST');
    expect(error.message).toContain('extra');
    if (style === 'legacy') expect(error.details).toEqual({ field: 'extra' });
  });
});
