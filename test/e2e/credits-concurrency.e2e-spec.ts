import { Subjects } from '@emailverify/contracts';
import { type Account, eventually, MailWorld, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * One account's balance under concurrent single verifications from several keys: the balance never goes below
 * zero, every credit charged is one verified address, and the ledger accounts for each of them.
 */
describe('concurrent single verifications of one account', () => {
  const CREDITS = 300;
  const REQUESTS = 500;
  const KEYS = 8;
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;
  const keys: string[] = [];

  beforeAll(async () => {
    world = await MailWorld.start();
    world.domain('ok.test', { mx: [{ priority: 10, host: 'mx.ok.test', smtp: { mailboxes: ['a'] } }] });
    suite = await TestSuite.start({
      world,
      services: ['credits', 'verifier'],
      // A shared, busy machine answers 500 requests at once slowly; the deadline is not what is tested here.
      appEnv: { gateway: { VERIFY_TIMEOUT_MS: '120000' } },
    });
    account = await suite.createAccount({ credits: CREDITS });
    keys.push(account.apiKey);
    for (let i = 1; i < KEYS; i++) {
      const key = await suite.bus.request(Subjects.creditsKeyCreate, {
        accountId: account.accountId,
        name: `key ${i}`,
      });
      keys.push(key.apiKey);
    }
  });
  afterAll(async () => suite?.stop());

  it(`charges exactly ${CREDITS} of ${REQUESTS} new addresses over ${KEYS} keys and refuses the rest with 402`, async () => {
    const replies = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        suite.call('/v1/verify/single', {
          key: keys[i % KEYS]!,
          body: { email: `user${i}@ok.test`, check_smtp: false },
        }),
      ),
    );
    const charged = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status !== 200);
    expect(charged).toHaveLength(CREDITS);
    for (const r of charged)
      expect(r.json.data).toMatchObject({ status: 'valid', reason: 'mx_found', credits_used: 1 });
    expect(refused).toHaveLength(REQUESTS - CREDITS);
    for (const r of refused) {
      expect(r.status).toBe(402);
      expect(r.json).toMatchObject({ success: false, code: '4020', error: { code: 'INSUFFICIENT_CREDITS' } });
    }

    const view = await suite.call('/v1/credits', { key: keys[3]! });
    expect(view.json.data).toMatchObject({
      credits_balance: 0,
      credits_consumed: CREDITS,
      credits_added: CREDITS,
    });
    const [ledger] = await suite.sql<{ total: string; reserved: string; refunded: string; granted: string }>(
      `SELECT COALESCE(SUM(amount), 0) AS total,
              COALESCE(SUM(amount) FILTER (WHERE kind = 'reserve'), 0) AS reserved,
              COALESCE(SUM(amount) FILTER (WHERE kind = 'refund'), 0) AS refunded,
              COALESCE(SUM(amount) FILTER (WHERE kind = 'grant'), 0) AS granted
         FROM credits.ledger WHERE account_id = $1`,
      [account.accountId],
    );
    expect(ledger).toEqual({
      total: '0',
      reserved: String(-CREDITS),
      refunded: '0',
      granted: String(CREDITS),
    });
    // A charged result's settlement moves no credit, and the reply does not wait for it.
    await eventually(async () =>
      expect(
        await suite.sql<{ status: string; n: string; used: string }>(
          `SELECT status, COUNT(*) AS n, SUM(used) AS used FROM credits.reservations WHERE account_id = $1
            GROUP BY status`,
          [account.accountId],
        ),
      ).toEqual([{ status: 'settled', n: String(CREDITS), used: String(CREDITS) }]),
    );
  });
});
