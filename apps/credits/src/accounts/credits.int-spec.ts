import { createHash } from 'node:crypto';
import { type AccountId, DomainError, Subjects } from '@emailverify/contracts';
import { eventually, TestSuite } from '@emailverify/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('credits service: reservations, settlement and the ledger (real PostgreSQL over NATS)', () => {
  let suite: TestSuite;

  beforeAll(async () => {
    suite = await TestSuite.start({
      gateways: 0,
      appEnv: { credits: { RESERVATION_SWEEP_INTERVAL_MS: '200' } },
    });
  });
  afterAll(async () => suite?.stop());

  async function ledgerSum(
    accountId: string,
  ): Promise<{ total: number; reserved: number; refunded: number; granted: number }> {
    const [row] = await suite.sql<{ total: string; reserved: string; refunded: string; granted: string }>(
      `SELECT COALESCE(SUM(amount), 0) AS total,
              COALESCE(SUM(amount) FILTER (WHERE kind = 'reserve'), 0) AS reserved,
              COALESCE(SUM(amount) FILTER (WHERE kind = 'refund'), 0) AS refunded,
              COALESCE(SUM(amount) FILTER (WHERE kind = 'grant'), 0) AS granted
         FROM credits.ledger WHERE account_id = $1`,
      [accountId],
    );
    return {
      total: Number(row!.total),
      reserved: Number(row!.reserved),
      refunded: Number(row!.refunded),
      granted: Number(row!.granted),
    };
  }

  async function balance(accountId: AccountId, apiKeyId: string): Promise<number> {
    return (await suite.bus.request(Subjects.creditsBalanceGet, { accountId, apiKeyId })).balance;
  }

  it('lets exactly 10 of 50 concurrent reservations of 10 succeed against a balance of 100', async () => {
    const { accountId, apiKeyId } = await suite.createAccount({ credits: 100 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: `job-${i}`, amount: 10 }),
      ),
    );
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(DomainError);
      expect((r.reason as DomainError).code).toBe('INSUFFICIENT_CREDITS');
    }
    expect(await balance(accountId, apiKeyId)).toBe(0);
    expect(await ledgerSum(accountId)).toEqual({ total: 0, reserved: -100, refunded: 0, granted: 100 });
  });

  it('applies a reservation repeated with the same idempotency key once', async () => {
    const { accountId, apiKeyId } = await suite.createAccount({ credits: 50 });
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: 'same', amount: 20 }),
      ),
    );
    expect(new Set(replies.map((r) => r.reservationId)).size).toBe(1);
    expect(replies.filter((r) => !r.replayed)).toHaveLength(1);
    expect(await balance(accountId, apiKeyId)).toBe(30);
    expect((await ledgerSum(accountId)).reserved).toBe(-20);
  });

  it('holds many reservations in one message, each with its own outcome, as if each had been sent alone', async () => {
    const a = await suite.createAccount({ credits: 10 });
    const b = await suite.createAccount({ credits: 3 });
    await suite.bus.request(Subjects.creditsReserve, {
      accountId: a.accountId,
      idempotencyKey: 'old',
      amount: 2,
    });
    const missing = '00000000-0000-4000-8000-000000000000' as AccountId;
    const { outcomes } = await suite.bus.request(Subjects.creditsReserveMany, {
      reservations: [
        { accountId: a.accountId, idempotencyKey: 'a1', amount: 3, holdSeconds: 60 },
        { accountId: b.accountId, idempotencyKey: 'b1', amount: 2 },
        // Reserved before: replayed, nothing taken.
        { accountId: a.accountId, idempotencyKey: 'old', amount: 2 },
        // More than is left after a1 (8 - 3 = 5): refused, and it does not keep the smaller ones after it out.
        { accountId: a.accountId, idempotencyKey: 'a2', amount: 6 },
        { accountId: a.accountId, idempotencyKey: 'a3', amount: 4 },
        { accountId: b.accountId, idempotencyKey: 'b2', amount: 2 },
        { accountId: missing, idempotencyKey: 'x', amount: 1 },
        // The same key twice in one message: held once.
        { accountId: b.accountId, idempotencyKey: 'b1', amount: 2 },
        { accountId: a.accountId, idempotencyKey: 'a4', amount: 1 },
      ],
    });
    expect(
      outcomes.map((o) => (o.ok ? { replayed: o.reply.replayed, amount: o.reply.amount } : o.error.code)),
    ).toEqual([
      { replayed: false, amount: 3 },
      { replayed: false, amount: 2 },
      { replayed: true, amount: 2 },
      'INSUFFICIENT_CREDITS',
      { replayed: false, amount: 4 },
      'INSUFFICIENT_CREDITS',
      'ACCOUNT_NOT_FOUND',
      { replayed: true, amount: 2 },
      { replayed: false, amount: 1 },
    ]);
    const [a1, b1, old, a2, , b2, , b1again] = outcomes;
    expect(a2).toMatchObject({ ok: false, error: { details: { required: 6, available: 5 } } });
    expect(b2).toMatchObject({ ok: false, error: { details: { required: 2, available: 1 } } });
    expect(b1again).toMatchObject({ ok: true, reply: { reservationId: b1!.ok && b1.reply.reservationId } });
    expect(old).toMatchObject({ ok: true, reply: { replayed: true } });
    expect(a1).toMatchObject({ ok: true, reply: { balance: 5 } });
    expect(await balance(a.accountId, a.apiKeyId)).toBe(0);
    expect(await balance(b.accountId, b.apiKeyId)).toBe(1);
    expect(await ledgerSum(a.accountId)).toEqual({ total: 0, reserved: -10, refunded: 0, granted: 10 });
    expect(await ledgerSum(b.accountId)).toEqual({ total: 1, reserved: -2, refunded: 0, granted: 3 });
    // Every reservation has its own ledger row, with the balance after it, and a1 its hold.
    const rows = await suite.sql<{
      idempotency_key: string;
      amount: string;
      balance_after: string;
      held: boolean;
    }>(
      `SELECT r.idempotency_key, l.amount, l.balance_after, r.expires_at IS NOT NULL AS held
         FROM credits.ledger l JOIN credits.reservations r ON r.id = l.reservation_id
        WHERE l.account_id = $1 ORDER BY l.id`,
      [a.accountId],
    );
    expect(rows).toEqual([
      { idempotency_key: 'old', amount: '-2', balance_after: '8', held: false },
      { idempotency_key: 'a1', amount: '-3', balance_after: '5', held: true },
      { idempotency_key: 'a3', amount: '-4', balance_after: '1', held: false },
      { idempotency_key: 'a4', amount: '-1', balance_after: '0', held: false },
    ]);
    // Settled like any other reservation.
    const settled = await suite.bus.request(Subjects.creditsSettle, {
      accountId: a.accountId,
      idempotencyKey: 'a3',
      used: 1,
    });
    expect(settled).toMatchObject({ used: 1, refunded: 3, balance: 3, replayed: false });
  });

  it('closes reservations used in full that come with new reservations, in the same message', async () => {
    const a = await suite.createAccount({ credits: 10 });
    for (const idempotencyKey of ['one', 'two', 'three'])
      await suite.bus.request(Subjects.creditsReserve, { accountId: a.accountId, idempotencyKey, amount: 2 });
    await suite.bus.request(Subjects.creditsSettle, {
      accountId: a.accountId,
      idempotencyKey: 'three',
      used: 1,
    });
    const reply = await suite.bus.request(Subjects.creditsReserveMany, {
      reservations: [{ accountId: a.accountId, idempotencyKey: 'four', amount: 3 }],
      close: [
        { accountId: a.accountId, idempotencyKey: 'one' },
        { accountId: a.accountId, idempotencyKey: 'two' },
        // Already settled: left as it is.
        { accountId: a.accountId, idempotencyKey: 'three' },
        // Not reserved (yet): nothing to close.
        { accountId: a.accountId, idempotencyKey: 'four' },
      ],
    });
    expect(reply).toMatchObject({ closed: 2, outcomes: [{ ok: true, reply: { amount: 3, balance: 2 } }] });
    const rows = await suite.sql<{ idempotency_key: string; status: string; used: string | null }>(
      `SELECT idempotency_key, status, used FROM credits.reservations WHERE account_id = $1 ORDER BY idempotency_key`,
      [a.accountId],
    );
    expect(rows).toEqual([
      { idempotency_key: 'four', status: 'reserved', used: null },
      { idempotency_key: 'one', status: 'settled', used: '2' },
      { idempotency_key: 'three', status: 'settled', used: '1' },
      { idempotency_key: 'two', status: 'settled', used: '2' },
    ]);
    expect(await balance(a.accountId, a.apiKeyId)).toBe(2);
    expect(await ledgerSum(a.accountId)).toEqual({ total: 2, reserved: -9, refunded: 1, granted: 10 });
  });

  it('lets exactly 100 of 300 reservations of one credit succeed, sent in messages of many at once', async () => {
    const { accountId, apiKeyId } = await suite.createAccount({ credits: 100 });
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, m) =>
        suite.bus.request(Subjects.creditsReserveMany, {
          reservations: Array.from({ length: 30 }, (_, i) => ({
            accountId,
            idempotencyKey: `single:${m}:${i}`,
            amount: 1,
            holdSeconds: 60,
          })),
        }),
      ),
    );
    const outcomes = replies.flatMap((r) => r.outcomes);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(100);
    expect(outcomes.filter((o) => !o.ok && o.error.code === 'INSUFFICIENT_CREDITS')).toHaveLength(200);
    expect(await balance(accountId, apiKeyId)).toBe(0);
    expect(await ledgerSum(accountId)).toEqual({ total: 0, reserved: -100, refunded: 0, granted: 100 });
    // A message repeated (a retry): every reservation in it is a replay or still refused, nothing new taken.
    const again = await suite.bus.request(Subjects.creditsReserveMany, {
      reservations: Array.from({ length: 30 }, (_, i) => ({
        accountId,
        idempotencyKey: `single:0:${i}`,
        amount: 1,
      })),
    });
    expect(again.outcomes.every((o) => !o.ok || o.reply.replayed)).toBe(true);
    expect(await balance(accountId, apiKeyId)).toBe(0);
    await expect(suite.bus.request(Subjects.creditsReserveMany, { reservations: [] })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  it('settles once: charges what was used, refunds the rest, and keeps the ledger equal to the balance', async () => {
    const { accountId, apiKeyId } = await suite.createAccount({ credits: 40 });
    await suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: 'job', amount: 30 });
    const first = await suite.bus.request(Subjects.creditsSettle, {
      accountId,
      idempotencyKey: 'job',
      used: 12,
    });
    expect(first).toMatchObject({ used: 12, refunded: 18, balance: 28, replayed: false });
    const again = await suite.bus.request(Subjects.creditsSettle, {
      accountId,
      idempotencyKey: 'job',
      used: 30,
    });
    expect(again).toMatchObject({ used: 12, refunded: 18, balance: 28, replayed: true });
    const view = await suite.bus.request(Subjects.creditsBalanceGet, { accountId, apiKeyId });
    expect(view).toMatchObject({ balance: 28, consumed: 12, added: 40 });
    const sums = await ledgerSum(accountId);
    expect(sums.total).toBe(28);
    expect(-(sums.reserved + sums.refunded)).toBe(view.consumed);
  });

  it('closes reservations used in full in one message: charged as reserved, no balance moved, each once', async () => {
    const a = await suite.createAccount({ credits: 20 });
    const b = await suite.createAccount({ credits: 20 });
    for (const idempotencyKey of ['one', 'two', 'three'])
      await suite.bus.request(Subjects.creditsReserve, { accountId: a.accountId, idempotencyKey, amount: 2 });
    await suite.bus.request(Subjects.creditsReserve, {
      accountId: b.accountId,
      idempotencyKey: 'b',
      amount: 5,
    });
    await suite.bus.request(Subjects.creditsSettle, {
      accountId: a.accountId,
      idempotencyKey: 'three',
      used: 1,
    });

    const closed = await suite.bus.request(Subjects.creditsCloseUsed, {
      reservations: [
        { accountId: a.accountId, idempotencyKey: 'one' },
        { accountId: a.accountId, idempotencyKey: 'two' },
        // Already settled: left as it is.
        { accountId: a.accountId, idempotencyKey: 'three' },
        // Another account's key: not this one's reservation.
        { accountId: a.accountId, idempotencyKey: 'b' },
        { accountId: b.accountId, idempotencyKey: 'b' },
      ],
    });
    expect(closed).toEqual({ closed: 3 });
    const again = await suite.bus.request(Subjects.creditsCloseUsed, {
      reservations: [{ accountId: a.accountId, idempotencyKey: 'one' }],
    });
    expect(again).toEqual({ closed: 0 });

    const rows = await suite.sql<{ idempotency_key: string; status: string; used: string; refunded: string }>(
      `SELECT idempotency_key, status, used, refunded FROM credits.reservations
        WHERE account_id = ANY($1::uuid[]) ORDER BY idempotency_key`,
      [[a.accountId, b.accountId]],
    );
    expect(rows).toEqual([
      { idempotency_key: 'b', status: 'settled', used: '5', refunded: '0' },
      { idempotency_key: 'one', status: 'settled', used: '2', refunded: '0' },
      { idempotency_key: 'three', status: 'settled', used: '1', refunded: '1' },
      { idempotency_key: 'two', status: 'settled', used: '2', refunded: '0' },
    ]);
    // A settle after the close is a replay of it.
    const late = await suite.bus.request(Subjects.creditsSettle, {
      accountId: a.accountId,
      idempotencyKey: 'two',
      used: 0,
    });
    expect(late).toMatchObject({ used: 2, refunded: 0, balance: 15, replayed: true });
    expect(await balance(a.accountId, a.apiKeyId)).toBe(15);
    expect(await balance(b.accountId, b.apiKeyId)).toBe(15);
    expect(await ledgerSum(a.accountId)).toEqual({ total: 15, reserved: -6, refunded: 1, granted: 20 });
    await expect(suite.bus.request(Subjects.creditsCloseUsed, { reservations: [] })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  it('refuses to settle more than was reserved, and a reservation that does not exist', async () => {
    const { accountId } = await suite.createAccount({ credits: 10 });
    await suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: 'small', amount: 2 });
    await expect(
      suite.bus.request(Subjects.creditsSettle, { accountId, idempotencyKey: 'small', used: 3 }),
    ).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(
      suite.bus.request(Subjects.creditsSettle, { accountId, idempotencyKey: 'nope', used: 0 }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it("never lets one account settle or read another account's reservation", async () => {
    const a = await suite.createAccount({ credits: 10 });
    const b = await suite.createAccount({ credits: 10 });
    await suite.bus.request(Subjects.creditsReserve, {
      accountId: a.accountId,
      idempotencyKey: 'mine',
      amount: 5,
    });
    await expect(
      suite.bus.request(Subjects.creditsSettle, { accountId: b.accountId, idempotencyKey: 'mine', used: 0 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await balance(a.accountId, a.apiKeyId)).toBe(5);
  });

  it('refuses malformed payloads without changing anything', async () => {
    const { accountId, apiKeyId } = await suite.createAccount({ credits: 10 });
    await expect(
      suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: 'x', amount: -5 }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(
      suite.bus.request(Subjects.creditsReserve, {
        accountId,
        idempotencyKey: 'x',
        amount: 1,
        extra: true,
      } as never),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await balance(accountId, apiKeyId)).toBe(10);
  });

  it('stores only a hash of each key, with a display prefix', async () => {
    const { apiKey, apiKeyId } = await suite.createAccount();
    expect(Buffer.from(apiKey.slice(3), 'base64url').length).toBeGreaterThanOrEqual(32);
    const [row] = await suite.sql<{ key_hash: string; prefix: string }>(
      `SELECT key_hash, prefix FROM credits.api_keys WHERE id = $1`,
      [apiKeyId],
    );
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.key_hash).not.toContain(apiKey);
    expect(apiKey.startsWith(row!.prefix)).toBe(true);
    const dump = JSON.stringify(await suite.sql(`SELECT * FROM credits.api_keys`));
    expect(dump).not.toContain(apiKey);
  });

  it('keeps a key mode, scope and expiry; a key past its expiry no longer authenticates', async () => {
    const { accountId, apiKey } = await suite.createAccount();
    const resolve = (key: string) =>
      suite.bus.request(Subjects.creditsAuthResolve, {
        keyHash: createHash('sha256').update(key).digest('hex'),
      });
    expect(await resolve(apiKey)).toMatchObject({ found: true, key: { mode: 'live', scope: 'full' } });

    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const sandbox = await suite.bus.request(Subjects.creditsKeyCreate, {
      accountId,
      mode: 'sandbox',
      scope: 'verify',
      expiresAt: inAnHour,
    });
    expect(sandbox).toMatchObject({ mode: 'sandbox', scope: 'verify', expiresAt: inAnHour });
    expect(sandbox.apiKey).toMatch(/^ev_test_/);
    expect(await resolve(sandbox.apiKey)).toMatchObject({
      found: true,
      key: { mode: 'sandbox', scope: 'verify' },
    });

    await suite.sql(`UPDATE credits.api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      sandbox.apiKeyId,
    ]);
    expect(await resolve(sandbox.apiKey)).toEqual({ found: false });
    expect(await resolve(apiKey)).toMatchObject({ found: true });
    await expect(
      suite.sql(`UPDATE credits.api_keys SET mode = 'staging' WHERE id = $1`, [sandbox.apiKeyId]),
    ).rejects.toThrow(/check constraint/);
  });

  it('pages the ledger newest first, naming the request or job of each charge and refund', async () => {
    const { accountId } = await suite.createAccount({ credits: 100 });
    const single = 'single:req-7:6c1e9a52-3a1d-4c57-9a43-2d1f1f3b9a10';
    await suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: single, amount: 3 });
    await suite.bus.request(Subjects.creditsSettle, { accountId, idempotencyKey: single, used: 2 });
    await suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: 'file:job-9', amount: 5 });
    await suite.bus.request(Subjects.creditsBalanceAdd, { accountId, credits: 50 });

    const first = await suite.bus.request(Subjects.creditsLedgerList, { accountId, limit: 3 });
    expect(
      first.entries.map((e) => [e.kind, e.amount, e.balanceAfter, e.source, e.requestId, e.jobId]),
    ).toEqual([
      ['grant', 50, 143, null, null, null],
      ['charge', -5, 93, 'file', null, 'job-9'],
      ['refund', 1, 98, 'single', 'req-7', null],
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await suite.bus.request(Subjects.creditsLedgerList, {
      accountId,
      limit: 3,
      cursor: first.nextCursor!,
    });
    expect(second.entries.map((e) => [e.kind, e.amount])).toEqual([
      ['charge', -3],
      ['grant', 100],
    ]);
    expect(second.nextCursor).toBeNull();

    // A range before the account existed holds nothing; a cursor not given out is refused.
    const before = await suite.bus.request(Subjects.creditsLedgerList, {
      accountId,
      limit: 10,
      to: '2020-01-01T00:00:00Z',
    });
    expect(before.entries).toEqual([]);
    await expect(
      suite.bus.request(Subjects.creditsLedgerList, { accountId, limit: 3, cursor: 'bm90LWEtY3Vyc29y' }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it("adds up a day's credits to the balance and counts verifications by status once per record", async () => {
    const { accountId, apiKeyId } = await suite.createAccount({ credits: 40 });
    await suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: 'bulk:r:1', amount: 6 });
    await suite.bus.request(Subjects.creditsSettle, { accountId, idempotencyKey: 'bulk:r:1', used: 4 });
    await suite.bus.request(Subjects.creditsBalanceAdd, { accountId, credits: 10 });
    const record = {
      key: `usage:${accountId}`,
      entries: [
        { accountId, mode: 'live' as const, status: 'valid' as const, count: 3 },
        { accountId, mode: 'live' as const, status: 'invalid' as const, count: 1 },
        { accountId, mode: 'sandbox' as const, status: 'valid' as const, count: 2 },
        { accountId, mode: 'live' as const, status: 'valid' as const, count: 1 },
      ],
    };
    expect(await suite.bus.request(Subjects.creditsUsageRecord, record)).toEqual({ recorded: true });
    expect(await suite.bus.request(Subjects.creditsUsageRecord, record)).toEqual({ recorded: false });

    const [{ today }] = (await suite.sql<{ today: string }>(
      `SELECT to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS today`,
    )) as [{ today: string }];
    const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const usage = await suite.bus.request(Subjects.creditsUsageGet, {
      accountId,
      from: yesterday,
      to: today,
    });
    expect(usage.days.map((d) => d.date)).toEqual([yesterday, today]);
    expect(usage.days[0]).toMatchObject({ creditsAdded: 0, creditsUsed: 0, verifications: { valid: 0 } });
    expect(usage.totals).toMatchObject({
      creditsAdded: 50,
      creditsUsed: 4,
      verifications: { valid: 4, invalid: 1, unknown: 0 },
      sandboxVerifications: { valid: 2, invalid: 0 },
    });
    expect(usage.totals.creditsAdded - usage.totals.creditsUsed).toBe(await balance(accountId, apiKeyId));

    await expect(
      suite.bus.request(Subjects.creditsUsageGet, { accountId, from: today, to: yesterday }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(
      suite.bus.request(Subjects.creditsUsageGet, { accountId, from: '2024-01-01', to: '2026-01-01' }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('refunds a reservation whose hold ran out, whole, once; a late settle changes nothing', async () => {
    const { accountId, apiKeyId } = await suite.createAccount({ credits: 10 });
    await suite.bus.request(Subjects.creditsReserve, {
      accountId,
      idempotencyKey: 'held',
      amount: 4,
      holdSeconds: 1,
    });
    await suite.bus.request(Subjects.creditsReserve, { accountId, idempotencyKey: 'durable', amount: 3 });
    expect(await balance(accountId, apiKeyId)).toBe(3);

    await eventually(async () => expect(await balance(accountId, apiKeyId)).toBe(7), { timeoutMs: 15_000 });
    const late = await suite.bus.request(Subjects.creditsSettle, {
      accountId,
      idempotencyKey: 'held',
      used: 4,
    });
    expect(late).toMatchObject({ used: 0, refunded: 4, balance: 7, replayed: true });
    expect(await balance(accountId, apiKeyId)).toBe(7);
    expect(await ledgerSum(accountId)).toEqual({ total: 7, reserved: -7, refunded: 4, granted: 10 });

    // Without a hold the reservation waits for its holder however long it takes.
    const statuses = await suite.sql<{ idempotency_key: string; status: string }>(
      `SELECT idempotency_key, status FROM credits.reservations WHERE account_id = $1 ORDER BY idempotency_key`,
      [accountId],
    );
    expect(statuses).toEqual([
      { idempotency_key: 'durable', status: 'reserved' },
      { idempotency_key: 'held', status: 'expired' },
    ]);
    const settled = await suite.bus.request(Subjects.creditsSettle, {
      accountId,
      idempotencyKey: 'durable',
      used: 3,
    });
    expect(settled).toMatchObject({ used: 3, refunded: 0, balance: 7, replayed: false });
  });

  it('refuses a hold that is not a whole number of seconds', async () => {
    const { accountId, apiKeyId } = await suite.createAccount({ credits: 10 });
    for (const holdSeconds of [0, -1, 1.5, 8 * 24 * 3600])
      await expect(
        suite.bus.request(Subjects.creditsReserve, {
          accountId,
          idempotencyKey: 'x',
          amount: 1,
          holdSeconds,
        }),
      ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await balance(accountId, apiKeyId)).toBe(10);
  });
});
