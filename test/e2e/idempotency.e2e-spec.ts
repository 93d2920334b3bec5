import { randomUUID } from 'node:crypto';
import { type Account, eventually, type HttpReply, MailWorld, TestSuite } from '@emailverify/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Style = 'current' | 'legacy';
const STYLES: Style[] = ['current', 'legacy'];
/** Gateway 2 keeps replies 1.8 seconds (IDEMPOTENCY_TTL_HOURS accepts fractions). */
const SHORT_TTL_GATEWAY = 2;

/**
 * Idempotency-Key on the whole suite: two gateways sharing Redis (and a third with a short TTL), the real
 * credits, verifier and file-jobs, the mail world. What a client sees: a repeat on either gateway gets the
 * first reply and is not charged again; an upload's repeat stores no second file.
 */
describe('Idempotency-Key across gateways (real Redis)', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let redis: Redis;

  beforeAll(async () => {
    world = await MailWorld.start();
    world
      .domain('ok.test', { mx: [{ priority: 10, host: 'mx.ok.test', smtp: { mailboxes: ['jane', 'bob'] } }] })
      .domain('slow.test', {
        mx: [{ priority: 10, host: 'mx.slow.test', smtp: { mailboxes: ['jane'], delayMs: 300 } }],
      });
    suite = await TestSuite.start({
      world,
      services: ['credits', 'verifier', 'file-jobs'],
      gateways: 2,
      redis: true,
    });
    await suite.startGateway({ IDEMPOTENCY_TTL_HOURS: '0.0005' });
    redis = new Redis(suite.redisUrl);
  });
  afterAll(async () => {
    await redis?.quit();
    await suite?.stop();
  });

  const balance = async (account: Account): Promise<number> =>
    (await suite.call('/v1/credits', { key: account.apiKey })).json.data.credits_balance;

  const verify = (
    account: Account,
    idempotencyKey: string,
    options: { style?: Style; gateway?: number; email?: string } = {},
  ) =>
    suite.call('/v1/verify/single', {
      key: account.apiKey,
      style: options.style,
      gateway: options.gateway,
      body: { email: options.email ?? 'jane@ok.test', check_smtp: true, force_refresh: true },
      headers: { 'Idempotency-Key': idempotencyKey },
    });

  /** Waits until one of the account's keys is held by a request in progress. */
  const leaseHeld = (account: Account) =>
    eventually(async () => {
      const names = await redis.keys(`${suite.namespace}:idem:{${account.accountId}}:*`);
      for (const name of names) if ((await redis.hget(name, 'state')) === 'lease') return true;
      return false;
    });

  const expectReplayOf = (first: HttpReply, again: HttpReply) => {
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  };

  it.each(STYLES)(
    'replays a verification on the other gateway and charges it once (%s style)',
    async (style) => {
      const account = await suite.createAccount({ credits: 10 });
      const k = randomUUID();
      const first = await verify(account, k, { style, gateway: 0 });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await verify(account, k, { style, gateway: 1 });
      expectReplayOf(first, again);
      expect(await balance(account)).toBe(9);
    },
  );

  it.each(STYLES)(
    'refuses the key with another request on the other gateway with 422 (%s style)',
    async (style) => {
      const account = await suite.createAccount({ credits: 10 });
      const k = randomUUID();
      expect((await verify(account, k, { style, gateway: 0 })).status).toBe(200);
      const other = await verify(account, k, { style, gateway: 1, email: 'bob@ok.test' });
      expect(other.status).toBe(422);
      if (style === 'current') {
        expect(other.json).toEqual({
          success: false,
          code: '4220',
          message: 'Idempotency key reused',
          error: { code: 'IDEMPOTENCY_KEY_REUSED', message: expect.stringMatching(/different request/) },
        });
      } else {
        expect(other.json).toEqual({
          error: {
            code: 'IDEMPOTENCY_KEY_REUSED',
            message: expect.stringMatching(/different request/),
            details: { field: 'Idempotency-Key' },
          },
        });
      }
      expect(await balance(account)).toBe(9);
    },
  );

  it('answers a concurrent repeat on the other gateway with 409 in both styles, then replays', async () => {
    const account = await suite.createAccount({ credits: 10 });
    const k = randomUUID();
    // The probe of a slow mail server keeps the first request in progress.
    const slow = { email: 'jane@slow.test', gateway: 0 };
    const call = (style: Style, gateway: number) =>
      suite.call('/v1/verify/single', {
        key: account.apiKey,
        style,
        gateway,
        body: { email: slow.email, check_smtp: true, force_refresh: true },
        headers: { 'Idempotency-Key': k },
      });
    const first = call('current', 0);
    await leaseHeld(account);
    const busy = await call('current', 1);
    expect(busy.status).toBe(409);
    expect(busy.json).toEqual({
      success: false,
      code: '4090',
      message: 'Idempotency key in use',
      error: { code: 'IDEMPOTENCY_KEY_IN_USE', message: expect.any(String) },
    });
    expect(busy.headers.get('retry-after')).toBe('1');
    const busyLegacy = await call('legacy', 1);
    expect(busyLegacy.status).toBe(409);
    expect(busyLegacy.json.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE', retry_after: 1 });
    const done = await first;
    expect(done.status).toBe(200);
    expectReplayOf(done, await call('current', 1));
    expect(await balance(account)).toBe(9);
  });

  it('replays an upload on the other gateway with the same task_id, storing one file and one job', async () => {
    const account = await suite.createAccount({ credits: 100 });
    const k = randomUUID();
    const uploadsBefore = (await suite.storedObjects()).filter((n) => n.startsWith('uploads/')).length;
    const send = (gateway: number, style?: Style, content = 'email\njane@ok.test\nbob@ok.test\n') =>
      suite.upload({
        key: account.apiKey,
        gateway,
        style,
        file: { name: 'leads.csv', content },
        headers: { 'Idempotency-Key': k },
      });
    const first = await send(0);
    expect(first.status).toBe(200);
    const again = await send(1);
    expectReplayOf(first, again);
    expect(again.json.data.task_id).toBe(first.json.data.task_id);
    const uploads = (await suite.storedObjects()).filter((n) => n.startsWith('uploads/'));
    expect(uploads).toHaveLength(uploadsBefore + 1);
    // Another file with the key: 422, in each style, and still nothing stored.
    expect((await send(1, 'current', 'email\nother@ok.test\n')).json.error.code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect((await send(0, 'legacy', 'email\nother@ok.test\n')).json.error.code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect((await suite.storedObjects()).filter((n) => n.startsWith('uploads/'))).toHaveLength(
      uploadsBefore + 1,
    );
    // One job, and one reservation of credits for it: the repeats charged nothing.
    const [jobs] = await suite.sql<{ n: string }>(
      'SELECT COUNT(*) AS n FROM files.jobs WHERE account_id = $1',
      [account.accountId],
    );
    expect(jobs).toEqual({ n: '1' });
    const [reservations] = await suite.sql<{ n: string }>(
      'SELECT COUNT(*) AS n FROM credits.reservations WHERE account_id = $1',
      [account.accountId],
    );
    expect(reservations).toEqual({ n: '1' });
  });

  it('answers an upload repeated while the first is still arriving with 409, storing nothing for it', async () => {
    const account = await suite.createAccount({ credits: 100 });
    const k = randomUUID();
    const boundary = `----idempotency-${randomUUID()}`;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const parts = async function* () {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.csv"\r\n` +
          'Content-Type: text/csv\r\n\r\nemail\n',
      );
      await released;
      yield Buffer.from(`jane@ok.test\n\r\n--${boundary}--\r\n`);
    };
    const first = fetch(`${suite.gatewayUrl(0)}/v1/verify/file`, {
      method: 'POST',
      headers: {
        'SVC-API-KEY': account.apiKey,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Idempotency-Key': k,
      },
      body: ReadableStream.from(parts()),
      duplex: 'half',
    } as RequestInit);
    await leaseHeld(account);
    const uploadsBefore = (await suite.storedObjects()).filter((n) => n.startsWith('uploads/')).length;
    for (const style of STYLES) {
      const busy = await suite.upload({
        key: account.apiKey,
        gateway: 1,
        style,
        file: { name: 'held.csv', content: 'email\njane@ok.test\n' },
        headers: { 'Idempotency-Key': k },
      });
      expect(busy.status).toBe(409);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(style === 'current' ? busy.json.error.code : busy.json.error.code).toBe(
        'IDEMPOTENCY_KEY_IN_USE',
      );
    }
    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect((await suite.storedObjects()).filter((n) => n.startsWith('uploads/'))).toHaveLength(
      uploadsBefore + 1,
    );
  });

  it('frees the key after a 5xx: the retry runs once the verifier is back, and is charged once', async () => {
    const account = await suite.createAccount({ credits: 10 });
    const k = randomUUID();
    await suite.stopService('verifier');
    try {
      for (const style of STYLES) {
        const failed = await verify(account, k, { style, gateway: 0 });
        expect(failed.status).toBe(503);
        expect(failed.headers.get('idempotent-replayed')).toBeNull();
      }
    } finally {
      await suite.startService('verifier');
    }
    const retry = await verify(account, k, { gateway: 1 });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expectReplayOf(retry, await verify(account, k, { gateway: 0 }));
    expect(await balance(account)).toBe(9);
  });

  it.each(STYLES)(
    'forgets a key once its TTL has passed: the same request then runs, charged again (%s style)',
    async (style) => {
      const account = await suite.createAccount({ credits: 10 });
      const k = randomUUID();
      const first = await verify(account, k, { style, gateway: SHORT_TTL_GATEWAY });
      expect(first.status).toBe(200);
      const name = (await redis.keys(`${suite.namespace}:idem:{${account.accountId}}:*`))[0]!;
      const ttl = await redis.pttl(name);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1800);
      // Kept for at most the TTL; once it is gone, the repeat is a new request.
      const fresh = await eventually(async () => {
        const again = await verify(account, k, { style, gateway: SHORT_TTL_GATEWAY });
        expect(again.status).toBe(200);
        expect(again.headers.get('idempotent-replayed')).toBeNull();
        return again;
      });
      expect(fresh.text).not.toBe('');
      expect(await balance(account)).toBe(8);
    },
  );
});
