import { type Account, eventually, MailWorld, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Credits never leak: a verification whose verifier dies between reserving and settling its credits gets them
 * back once the reservation's hold runs out (short here), refunded by the credits service's sweep.
 */
describe('credits held by a verifier that dies mid-verification', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    // The MX accepts the connection and never greets: the verification stays in flight until the verifier dies.
    world.domain('stalled.test', { mx: [{ priority: 10, host: 'mx.stalled.test', smtp: { silent: true } }] });
    suite = await TestSuite.start({
      world,
      env: { SMTP_CONNECT_TIMEOUT_MS: '60000', SMTP_COMMAND_TIMEOUT_MS: '60000' },
      appEnv: {
        verifier: { CREDIT_HOLD_SECONDS: '3' },
        credits: { RESERVATION_SWEEP_INTERVAL_MS: '250' },
        gateway: { VERIFY_TIMEOUT_MS: '5000' },
      },
    });
    account = await suite.createAccount({ credits: 5 });
  });
  afterAll(async () => suite?.stop());

  const balance = async () =>
    (await suite.call('/v1/credits', { key: account.apiKey })).json.data.credits_balance as number;
  const reservations = () =>
    suite.sql<{ status: string; amount: string; refunded: string | null }>(
      `SELECT status, amount, refunded FROM credits.reservations WHERE account_id = $1`,
      [account.accountId],
    );

  it('refunds the reserved credit after the hold expires, and a restarted verifier charges normally', async () => {
    const pending = suite
      .call('/v1/verify/single', {
        key: account.apiKey,
        body: { email: 'someone@stalled.test', check_smtp: true },
      })
      .catch(() => undefined);

    // In flight: the credit is reserved and the verifier is talking to the stalled MX.
    await eventually(async () =>
      expect(await reservations()).toEqual([{ status: 'reserved', amount: '1', refunded: null }]),
    );
    expect(await balance()).toBe(4);

    await suite.stopService('verifier', 'SIGKILL');
    // The client is told the verification timed out, and is not charged for it.
    expect((await pending)?.status).toBe(504);

    await eventually(async () => expect(await balance()).toBe(5), { timeoutMs: 30_000 });
    expect(await reservations()).toEqual([{ status: 'expired', amount: '1', refunded: '1' }]);

    // A late settle changes nothing; the next verification charges as usual.
    await suite.startService('verifier');
    const next = await suite.call('/v1/verify/single', {
      key: account.apiKey,
      body: { email: 'nobody@nx-domain-that-does-not-resolve.test' },
    });
    expect(next.status).toBe(200);
    expect(await balance()).toBe(5 - next.json.data.credits_used);
  });
});
