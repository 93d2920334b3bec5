import { createHash } from 'node:crypto';
import { type KeyMode, type ResolvedKey, Subjects } from '@emailverify/contracts';
import { sandboxVerdict } from '@emailverify/verification';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeJob, makeResult } from '../testing/factories';
import { ACCOUNT, GatewayHarness } from '../testing/gateway-harness';
import { expectError, payloadOf, STYLES } from '../testing/replies';

// What a sandbox key's requests carry to the services behind the gateway (the sandbox flag), and the one
// sandbox answer the gateway gives itself (the disposable check). A live key's requests carry no flag.

const SANDBOX_KEY = 'ev_test_sandbox-key';
const LIVE_KEY = 'ev_live-key';

const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const keyOf = (apiKeyId: string, mode: KeyMode): ResolvedKey => ({
  accountId: ACCOUNT,
  apiKeyId,
  apiKeyName: mode,
  style: 'current',
  plan: 'payg',
  mode,
  scope: 'full',
});
const KEYS = new Map([
  [hashOf(SANDBOX_KEY), keyOf('key-sandbox', 'sandbox')],
  [hashOf(LIVE_KEY), keyOf('key-live', 'live')],
]);

describe('a sandbox key at the gateway', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await GatewayHarness.start();
  });
  afterAll(async () => gateway?.close());

  beforeEach(() => {
    gateway.reset();
    gateway.bus.answer(Subjects.creditsAuthResolve, ({ keyHash }) => {
      const key = KEYS.get(keyHash);
      return key ? { found: true, key } : { found: false };
    });
    gateway.bus.answer(Subjects.verifySingle, ({ email }) => makeResult({ email, creditsUsed: 0 }));
    gateway.bus.answer(Subjects.verifyBulk, ({ emails }) => ({
      results: emails.map((email) => makeResult({ email })),
      creditsUsed: 0,
      processTimeMs: 1,
    }));
    gateway.bus.answer(Subjects.filesJobCreate, () => makeJob({ status: 'pending' }));
  });

  it('marks single, bulk and domain requests sandbox, and leaves a live key unmarked', async () => {
    const payloads = async (key: string) => {
      gateway.reset();
      await gateway.call('/v1/verify/single', { key, body: { email: 'x+role@example.com' } });
      await gateway.call('/v1/verify/bulk', { key, body: { emails: ['a@example.com'] } });
      await gateway.call('/v1/verify/domain?domain=example.com', { key });
      return gateway.bus.asked.map((a) => [a.subject, (a.payload as { sandbox?: boolean }).sandbox]);
    };
    expect(await payloads(SANDBOX_KEY)).toEqual([
      [Subjects.verifySingle, true],
      [Subjects.verifyBulk, true],
      [Subjects.verifyDomain, true],
    ]);
    expect(await payloads(LIVE_KEY)).toEqual([
      [Subjects.verifySingle, undefined],
      [Subjects.verifyBulk, undefined],
      [Subjects.verifyDomain, undefined],
    ]);
  });

  it('marks an upload sandbox, so file-jobs reserves nothing', async () => {
    const form = new FormData();
    form.append('file', new Blob(['email\nvalid@example.com\n']), 'leads.csv');
    const res = await gateway.call('/v1/verify/file', { key: SANDBOX_KEY, form });
    expect(res.status).toBe(200);
    expect(gateway.bus.asked).toEqual([
      expect.objectContaining({
        subject: Subjects.filesJobCreate,
        payload: expect.objectContaining({ accountId: ACCOUNT, sandbox: true }),
      }),
    ]);
  });

  it("asks about a job in the key's mode, so sandbox and live jobs stay apart", async () => {
    gateway.bus.answer(Subjects.filesJobGet, () => makeJob());
    for (const key of [SANDBOX_KEY, LIVE_KEY])
      await gateway.call(`/v1/verify/file/${makeJob().jobId}`, { key });
    expect(gateway.bus.asked.map((a) => (a.payload as { mode?: string }).mode)).toEqual(['sandbox', 'live']);
  });

  it.each(STYLES)('answers the disposable check from the table, without a hop (%s style)', async (style) => {
    const ask = async (email: string, key = SANDBOX_KEY) =>
      payloadOf(
        style,
        await gateway.call(`/v1/verify/disposable?email=${encodeURIComponent(email)}`, { key, style }),
      ) as Record<string, unknown>;
    expect(await ask('x+disposable@example.com')).toMatchObject({ is_disposable: true });
    // The list's disposable domain is not disposable for a sandbox key, and is for a live one.
    expect(await ask('jane@mailinator.com')).toMatchObject({ is_disposable: false });
    expect(await ask('jane@mailinator.com', LIVE_KEY)).toMatchObject({ is_disposable: true });
    expect(gateway.bus.asked).toEqual([]);
  });

  it.each(STYLES)('refuses malformed input as for a live key, before any hop (%s style)', async (style) => {
    for (const path of ['/v1/verify/disposable?email=nope', '/v1/verify/single']) {
      const res = await gateway.call(path, {
        key: SANDBOX_KEY,
        style,
        ...(path.endsWith('single') ? { body: { email: 'nope' } } : {}),
      });
      expectError(style, res, 400, 'INVALID_EMAIL');
    }
    expect(gateway.bus.asked).toEqual([]);
  });

  it('shows a sandbox answer as it shows a live one (the presenter is the same)', async () => {
    gateway.bus.answer(Subjects.verifySingle, ({ email }) => ({
      ...sandboxVerdict(email, { checkSmtp: false }),
      creditsUsed: 0,
      cached: false,
    }));
    const res = await gateway.call('/v1/verify/single', {
      key: SANDBOX_KEY,
      body: { email: 'x+catchall@example.com' },
    });
    expect(payloadOf('current', res)).toMatchObject({
      email: 'x+catchall@example.com',
      status: 'catchall',
      reason: 'catch_all',
      is_catchall: true,
      credits_used: 0,
    });
  });
});
