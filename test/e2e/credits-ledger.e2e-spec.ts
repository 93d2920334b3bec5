import type { ResponseStyle } from '@emailverify/contracts';
import { type Account, eventually, type HttpReply, MailWorld, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const STYLES: ResponseStyle[] = ['current', 'legacy'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary reply shapes
function payloadOf(style: ResponseStyle, res: HttpReply): any {
  expect(res.status, res.text).toBe(200);
  if (style === 'legacy') return res.json;
  expect(res.json).toMatchObject({ success: true, code: '0' });
  return res.json.data;
}

/**
 * What an account's credits went to, as a dashboard reads it: the ledger page by page (each charge naming its
 * request) and the usage per day (verifications by status, credits added and used), both adding up to the
 * balance.
 */
describe('credits ledger and usage', () => {
  let world: MailWorld;
  let suite: TestSuite;
  let account: Account;

  beforeAll(async () => {
    world = await MailWorld.start();
    world.domain('ok.test', { mx: [{ priority: 10, host: 'mx.ok.test', smtp: { mailboxes: ['a'] } }] });
    suite = await TestSuite.start({ world, services: ['credits', 'verifier'] });
    account = await suite.createAccount({ credits: 20 });

    const verify = (path: string, requestId: string, body: unknown) =>
      suite.call(path, { key: account.apiKey, body, headers: { 'X-Request-Id': requestId } });
    const single = await verify('/v1/verify/single', 'ledger-req-1', {
      email: 'a@ok.test',
      check_smtp: false,
    });
    expect(single.json.data).toMatchObject({ status: 'valid', credits_used: 1 });
    const bulk = await verify('/v1/verify/bulk', 'ledger-req-2', {
      emails: ['b@ok.test', 'c@ok.test', 'not-an-address'],
      check_smtp: false,
    });
    expect(bulk.json.data).toMatchObject({ credits_used: 2 });
    // A cached result: free, so no ledger entry, but a verification all the same.
    const cached = await verify('/v1/verify/single', 'ledger-req-3', {
      email: 'a@ok.test',
      check_smtp: false,
    });
    expect(cached.json.data).toMatchObject({ status: 'valid', credits_used: 0 });
  });
  afterAll(async () => suite?.stop());

  const balance = async () =>
    (await suite.call('/v1/credits', { key: account.apiKey })).json.data.credits_balance;

  it.each(STYLES)(
    'pages the ledger newest first, each charge naming its request (%s style)',
    async (style) => {
      const first = payloadOf(
        style,
        await suite.call('/v1/credits/ledger?limit=2', { key: account.apiKey, style }),
      );
      expect(first.entries).toEqual([
        expect.objectContaining({
          type: 'charge',
          amount: -2,
          balance_after: 17,
          source: 'bulk',
          request_id: 'ledger-req-2',
          job_id: null,
        }),
        expect.objectContaining({
          type: 'charge',
          amount: -1,
          balance_after: 19,
          source: 'single',
          request_id: 'ledger-req-1',
        }),
      ]);
      expect(first.next_cursor).toEqual(expect.any(String));
      const rest = payloadOf(
        style,
        await suite.call(`/v1/credits/ledger?limit=100&cursor=${first.next_cursor}`, {
          key: account.apiKey,
          style,
        }),
      );
      expect(rest).toEqual({
        entries: [
          expect.objectContaining({
            type: 'grant',
            amount: 20,
            balance_after: 20,
            source: null,
            request_id: null,
          }),
        ],
        next_cursor: null,
      });
      const entries = [...first.entries, ...rest.entries] as Array<{ amount: number }>;
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(await balance());
    },
  );

  it.each(STYLES)(
    'counts the day by status, its credits adding up to the balance (%s style)',
    async (style) => {
      // Usage records travel after the replies: wait until all four verifications are in.
      await eventually(
        async () => {
          const usage = payloadOf(
            style,
            await suite.call('/v1/credits/usage', { key: account.apiKey, style }),
          );
          expect(usage.totals.verifications).toMatchObject({ total: 5, valid: 4, invalid: 1, unknown: 0 });
        },
        { timeoutMs: 15_000 },
      );
      const usage = payloadOf(
        style,
        await suite.call('/v1/credits/usage?granularity=day', { key: account.apiKey, style }),
      );
      expect(usage.granularity).toBe('day');
      expect(usage.days).toHaveLength(30);
      expect(usage.days.at(-1).date).toBe(usage.to);
      expect(usage.totals).toMatchObject({
        credits_added: 20,
        credits_used: 3,
        sandbox_verifications: { total: 0 },
      });
      expect(usage.totals.credits_added - usage.totals.credits_used).toBe(await balance());
      const days = usage.days as Array<{ credits_added: number; credits_used: number }>;
      expect(days.reduce((sum, d) => sum + d.credits_added - d.credits_used, 0)).toBe(await balance());
    },
  );

  it.each(STYLES)('refuses malformed ledger and usage queries naming the field (%s style)', async (style) => {
    for (const [path, field] of [
      ['/v1/credits/ledger?cursor=WyJsZWRnZXIiLCJ4Il0', 'cursor'],
      ['/v1/credits/ledger?limit=0', 'limit'],
      ['/v1/credits/ledger?limit=101', 'limit'],
      ['/v1/credits/ledger?from=2026-11-30&to=2026-11-01', 'from'],
      ['/v1/credits/usage?from=2026-02-30', 'from'],
      ['/v1/credits/usage?from=2020-01-01&to=2026-01-01', 'to'],
      ['/v1/credits/usage?granularity=hour', 'granularity'],
    ]) {
      const res = await suite.call(path!, { key: account.apiKey, style });
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      if (style === 'current')
        expect(res.json).toMatchObject({
          success: false,
          code: '4000',
          error: { code: 'INVALID_REQUEST', message: expect.stringContaining(field!) },
        });
      else expect(res.json.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field } });
    }
  });

  it("shows another account's ledger to nobody", async () => {
    const other = await suite.createAccount({ credits: 5 });
    const page = payloadOf('current', await suite.call('/v1/credits/ledger', { key: other.apiKey }));
    expect(page.entries).toEqual([expect.objectContaining({ type: 'grant', amount: 5 })]);
  });
});
