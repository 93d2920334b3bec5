import http from 'node:http';
import { Broadcasts, Subjects } from '@emailverify/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayHarness, KEYS } from '../../testing/gateway-harness';
import { expectError, payloadOf, STYLES } from '../../testing/replies';

// The API-key guard over HTTP, on the one route that makes no hop (the disposable check), so every request
// the stand-in bus sees is the guard's own key lookup.

const ROUTE = '/v1/verify/disposable?email=someone@mailinator.com';

describe('ApiKeyGuard', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start();
  });
  afterAll(async () => gateway?.close());
  beforeEach(() => gateway.reset());

  it.each(STYLES)('answers a request without a key with 401 INVALID_API_KEY (%s style)', async (style) => {
    const res = await gateway.call(ROUTE, { key: null, style });
    const error = expectError(style, res, 401, 'INVALID_API_KEY');
    expect(error.message).toBe('An API key is required (SVC-API-KEY header)');
    expect(gateway.bus.authLookups).toBe(0);
  });

  it.each(STYLES)('answers an unknown key with 401 INVALID_API_KEY (%s style)', async (style) => {
    const res = await gateway.call(ROUTE, { key: 'ev_unknown', style });
    expect(expectError(style, res, 401, 'INVALID_API_KEY').message).toBe('The API key is invalid or revoked');
  });

  it.each([
    ['SVC-API-KEY', KEYS.current],
    ['SERVICE-API-KEY', KEYS.current],
    ['Authorization', `Bearer ${KEYS.current}`],
    ['Authorization', `bearer   ${KEYS.current}  `],
  ])('accepts the key in %s alone (%s)', async (header, value) => {
    const res = await gateway.call(ROUTE, { key: null, headers: { [header]: value } });
    expect(res.status).toBe(200);
  });

  it.each([
    [
      'a wrong SVC-API-KEY before a good Bearer',
      { 'SVC-API-KEY': 'ev_wrong', Authorization: `Bearer ${KEYS.current}` },
    ],
    [
      'an empty SVC-API-KEY before a good SERVICE-API-KEY',
      { 'SVC-API-KEY': '', 'SERVICE-API-KEY': KEYS.current },
    ],
    ['an Authorization that is not Bearer', { Authorization: `Basic ${KEYS.current}` }],
  ])('lets the first carrier present decide: %s is 401', async (_case, headers) => {
    const res = await gateway.call(ROUTE, { key: null, headers });
    expectError('current', res, 401, 'INVALID_API_KEY');
  });

  it('judges each request of one connection by its own key', async () => {
    // One keep-alive connection for every request: good, wrong, absent and good again, alternating.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    const statusWith = (key: string | undefined) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(gateway.url(ROUTE), {
          agent,
          headers: key === undefined ? {} : { 'SVC-API-KEY': key },
        });
        req.once('socket', (socket) => socket.once('connect', () => ports.add(socket.localPort!)));
        req.once('response', (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode!));
        });
        req.once('error', reject);
      });
    try {
      const keys = [KEYS.current, 'ev_wrong', KEYS.current, undefined, KEYS.legacy, 'ev_wrong', KEYS.current];
      const statuses: number[] = [];
      for (const key of keys) statuses.push(await statusWith(key));
      expect(statuses).toEqual([200, 401, 200, 401, 200, 401, 200]);
      expect(ports.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('lets public routes through without a key, and counts nothing against a limit there', async () => {
    const res = await gateway.call('/health/live', { key: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(gateway.bus.authLookups).toBe(0);
  });

  it("answers in the key's default style unless SVC-Response-Style asks otherwise", async () => {
    const legacyByKey = await gateway.call(ROUTE, { key: KEYS.legacy });
    expect(payloadOf('legacy', legacyByKey)).toMatchObject({ is_disposable: true });
    const currentByHeader = await gateway.call(ROUTE, { key: KEYS.legacy, style: 'current' });
    expect(payloadOf('current', currentByHeader)).toMatchObject({ is_disposable: true });
    const legacyByHeader = await gateway.call(ROUTE, { key: KEYS.current, style: 'legacy' });
    expect(payloadOf('legacy', legacyByHeader)).toMatchObject({ is_disposable: true });
  });

  it('refuses an unknown SVC-Response-Style value with 400 naming the header', async () => {
    const res = await gateway.call(ROUTE, { headers: { 'SVC-Response-Style': 'fancy' } });
    expect(expectError('current', res, 400, 'INVALID_REQUEST').message).toContain('SVC-Response-Style');
  });

  it('asks the credits service once per key, and again after the key was revoked or changed', async () => {
    const { key, apiKeyId } = gateway.newKey();
    expect((await gateway.call(ROUTE, { key })).status).toBe(200);
    expect((await gateway.call(ROUTE, { key })).status).toBe(200);
    expect(gateway.bus.authLookups).toBe(1);
    gateway.bus.broadcast(Broadcasts.keyChanged, { apiKeyId });
    expect((await gateway.call(ROUTE, { key })).status).toBe(200);
    expect(gateway.bus.authLookups).toBe(2);
  });

  it('does not keep a lookup that was answered while the key changed: the next request asks again', async () => {
    const { key, apiKeyId } = gateway.newKey();
    // The revocation's broadcast arrives while the credits service's answer (made before it) is on its way.
    gateway.bus.whileAsked = (subject) => {
      if (subject === Subjects.creditsAuthResolve) gateway.bus.broadcast(Broadcasts.keyChanged, { apiKeyId });
    };
    expect((await gateway.call(ROUTE, { key })).status).toBe(200);
    gateway.bus.whileAsked = undefined;
    expect((await gateway.call(ROUTE, { key })).status).toBe(200);
    expect(gateway.bus.authLookups).toBe(2);
    // That second answer came with no change in between: it is kept.
    expect((await gateway.call(ROUTE, { key })).status).toBe(200);
    expect(gateway.bus.authLookups).toBe(2);
  });
});

describe('ApiKeyGuard: failed authentication per client address', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start({ env: { RATE_LIMIT_AUTH_FAILURES: '3' } });
  });
  afterAll(async () => gateway?.close());

  it('refuses an address that keeps failing with 429 and Retry-After, whatever key it tries next', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await gateway.call(ROUTE, { key: `ev_guess-${i}` })).status).toBe(401);
    }
    const current = await gateway.call(ROUTE, { key: 'ev_guess-4' });
    expectError('current', current, 429, 'RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(current.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const lookups = gateway.bus.authLookups;
    const legacy = await gateway.call(ROUTE, { key: KEYS.current, style: 'legacy' });
    const error = expectError('legacy', legacy, 429, 'RATE_LIMIT_EXCEEDED');
    expect(error.retry_after).toBe(Number(legacy.headers.get('retry-after')));
    expect(gateway.bus.authLookups).toBe(lookups);
  });
});
