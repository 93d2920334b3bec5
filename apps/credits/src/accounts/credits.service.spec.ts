import { randomUUID } from 'node:crypto';
import {
  type AccountId,
  Broadcasts,
  DomainError,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  type ResponseStyle,
} from '@emailverify/contracts';
import { Metrics } from '@emailverify/service-kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { CreditsMetrics } from '../credits.metrics';
import { hashApiKey } from './api-key';
import type {
  AccountRow,
  CreditsRepository,
  CreditsTx,
  KeyRow,
  ReservationRow,
  ReserveOutcome,
} from './credits.repository';
import { CreditsService } from './credits.service';

// CreditsService's decisions over an in-memory stand-in for its repository: what is charged, refunded,
// refused and replayed, and what the gateways are told. The SQL itself (one statement per change, locks,
// races between replicas) is credits.int-spec.ts's business.

type Reservation = ReservationRow;
type Key = KeyRow & { key_hash: string };

/** The accounts, keys and reservations the stand-in repository holds, as the database would. */
class Books {
  readonly accounts = new Map<AccountId, AccountRow>();
  readonly keys = new Map<string, Key>();
  readonly reservations = new Map<string, Reservation>();
  /** Keys another replica reserves at the same moment as the next statement that reserves them (its amount). */
  readonly racing = new Map<string, number>();

  account(credits: number, plan = 'payg'): AccountId {
    const id = randomUUID() as AccountId;
    const now = new Date();
    this.accounts.set(id, {
      id,
      name: 'acme',
      plan,
      balance: credits,
      consumed: 0,
      added: credits,
      updated_at: now,
    });
    return id;
  }

  balanceOf(id: AccountId): number {
    return this.accounts.get(id)!.balance;
  }

  reservation(accountId: AccountId, idempotencyKey: string): Reservation | undefined {
    return this.reservations.get(`${accountId}/${idempotencyKey}`);
  }

  /** Holds credits as a reservation statement would; `expired` says its hold has run out. */
  hold(
    accountId: AccountId,
    idempotencyKey: string,
    amount: number,
    expired = false,
    id: string = randomUUID(),
  ): Reservation {
    const account = this.accounts.get(accountId)!;
    account.balance -= amount;
    account.consumed += amount;
    const row: Reservation = {
      id,
      account_id: accountId,
      idempotency_key: idempotencyKey,
      amount,
      used: null,
      refunded: null,
      status: 'reserved',
      expired,
    };
    this.reservations.set(`${accountId}/${idempotencyKey}`, row);
    return row;
  }
}

const notHere = (): never => {
  throw new Error('CreditsService does not call this');
};

/** A unique-key violation, as PostgreSQL reports one. */
const uniqueViolation = () => Object.assign(new Error('duplicate key value'), { code: '23505' });

/** The repository's methods CreditsService calls, over `books`. */
function standInRepository(books: Books): Pick<CreditsRepository, keyof CreditsRepository> {
  const tx: Pick<CreditsTx, keyof CreditsTx> = {
    async insertAccount(a) {
      books.accounts.set(a.id, {
        ...a,
        balance: 0,
        consumed: 0,
        added: 0,
        updated_at: new Date(),
      });
    },
    async insertKey(k) {
      const row = {
        id: k.id,
        account_id: k.accountId,
        name: k.name,
        prefix: k.prefix,
        style: k.style,
        mode: k.mode,
        scope: k.scope,
        key_hash: k.hash,
        created_at: new Date(),
        expires_at: k.expiresAt,
        revoked_at: null,
      };
      books.keys.set(k.id, row);
      return { ...row };
    },
    async lockAccount(accountId) {
      return books.accounts.get(accountId);
    },
    async countActiveKeys(accountId) {
      return [...books.keys.values()].filter(
        (k) =>
          k.account_id === accountId &&
          !k.revoked_at &&
          (!k.expires_at || k.expires_at.getTime() > Date.now()),
      ).length;
    },
    async applyChange(change) {
      const account = books.accounts.get(change.accountId)!;
      account.balance += change.amount;
      account.added += change.amount;
      return { ...account };
    },
  };
  const reserveMany: CreditsRepository['reserveMany'] = async (rs, close = []) => {
    for (const r of rs) {
      const racer = books.racing.get(r.idempotencyKey);
      if (racer === undefined) continue;
      // The other replica's statement commits first; this one is undone whole.
      books.racing.delete(r.idempotencyKey);
      books.hold(r.accountId, r.idempotencyKey, racer);
      throw uniqueViolation();
    }
    const refusedIn = new Set<AccountId>();
    const outcomes = rs.map((r): ReserveOutcome => {
      const account = books.accounts.get(r.accountId);
      if (!account) return { kind: 'no-account' };
      const prior = books.reservation(r.accountId, r.idempotencyKey);
      if (prior) return { kind: 'replayed', id: prior.id, amount: prior.amount, balance: account.balance };
      if (refusedIn.has(r.accountId) || account.balance < r.amount) {
        refusedIn.add(r.accountId);
        return { kind: 'short', balance: account.balance };
      }
      books.hold(r.accountId, r.idempotencyKey, r.amount, false, r.id);
      return { kind: 'reserved', balance: account.balance };
    });
    // A short reservation reports the balance the whole statement left.
    const settled = outcomes.map((o, i) =>
      o.kind === 'short' ? { kind: o.kind, balance: books.balanceOf(rs[i]!.accountId) } : o,
    );
    return { outcomes: settled, closed: await closeUsed(close) };
  };
  const closeUsed: CreditsRepository['closeUsedReservations'] = async (refs) => {
    let closed = 0;
    for (const ref of refs) {
      const row = books.reservation(ref.accountId, ref.idempotencyKey);
      if (row?.status !== 'reserved') continue;
      Object.assign(row, { status: 'settled', used: row.amount, refunded: 0 });
      closed += 1;
    }
    return closed;
  };
  return {
    transaction: (work) => work(tx as CreditsTx),
    async findActiveKeyByHash(hash) {
      const key = [...books.keys.values()].find(
        (k) => k.key_hash === hash && !k.revoked_at && (!k.expires_at || k.expires_at.getTime() > Date.now()),
      );
      return key && { ...key, plan: books.accounts.get(key.account_id)!.plan };
    },
    async expiredReservationsInternal(limit) {
      return [...books.reservations.values()]
        .filter((r) => r.status === 'reserved' && r.expired)
        .slice(0, limit);
    },
    async findAccount(accountId) {
      const account = books.accounts.get(accountId);
      return account && { ...account };
    },
    async findKey(accountId, keyId) {
      const key = books.keys.get(keyId);
      return key?.account_id === accountId ? key : undefined;
    },
    async reserve(r) {
      return (await reserveMany([r])).outcomes[0]!;
    },
    reserveMany,
    async endReservation(e) {
      const row = books.reservation(e.accountId, e.idempotencyKey);
      if (row?.status !== 'reserved' || e.used > row.amount) return undefined;
      if (e.status === 'expired' && !row.expired) return undefined;
      const refunded = row.amount - e.used;
      const account = books.accounts.get(e.accountId)!;
      account.balance += refunded;
      account.consumed -= refunded;
      Object.assign(row, { status: e.status, used: e.used, refunded });
      return { id: row.id, used: e.used, refunded, balance: account.balance };
    },
    closeUsedReservations: closeUsed,
    async findReservation(accountId, idempotencyKey) {
      const row = books.reservation(accountId, idempotencyKey);
      return row && { ...row, balance: books.balanceOf(accountId) };
    },
    async findKeyForOperator(keyId, keyHash) {
      return [...books.keys.values()].find((k) => k.id === keyId || k.key_hash === keyHash);
    },
    async listKeys(accountId, mode) {
      return [...books.keys.values()].filter((k) => k.account_id === accountId && (!mode || k.mode === mode));
    },
    async revokeKey(accountId, keyId, mode) {
      const key = books.keys.get(keyId);
      if (key?.account_id !== accountId || (mode && key.mode !== mode)) return undefined;
      key.revoked_at ??= new Date();
      return key;
    },
    // The ledger and usage are UsageService's (usage.service.spec.ts, credits.int-spec.ts).
    ledgerPage: notHere,
    ledgerByDay: notHere,
    usageByDay: notHere,
    recordUsage: notHere,
    pruneUsageKeysInternal: notHere,
    async setKeyStyleForOperator(keyId, style) {
      const key = books.keys.get(keyId);
      if (key) key.style = style;
      return key;
    },
    async revokeKeyForOperator(keyId) {
      const key = books.keys.get(keyId);
      if (key) key.revoked_at ??= new Date();
      return key;
    },
  };
}

/** What the service publishes, and a flush that completes only when the test lets it. */
class StandInBus {
  readonly published: Array<{ subject: string; payload: unknown }> = [];
  private flushed: Array<() => void> = [];
  /** Whether the next flush completes at once. */
  flushAtOnce = true;

  publish(subject: string, payload: unknown): void {
    this.published.push({ subject, payload });
  }

  flush(): Promise<void> {
    if (this.flushAtOnce) return Promise.resolve();
    return new Promise((resolve) => this.flushed.push(resolve));
  }

  /** The server has handed what was published to every subscriber. */
  completeFlush(): void {
    for (const resolve of this.flushed.splice(0)) resolve();
  }
}

/** What a counter of the service's metrics holds for one source. */
async function counted(counter: CreditsMetrics['consumed'], source: string): Promise<number> {
  return (await counter.get()).values.find((v) => v.labels.source === source)?.value ?? 0;
}

/** The DomainError `work` fails with. */
async function refusal(work: Promise<unknown>): Promise<DomainError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('CreditsService', () => {
  let books: Books;
  let bus: StandInBus;
  let metrics: CreditsMetrics;
  let credits: CreditsService;

  beforeEach(() => {
    books = new Books();
    bus = new StandInBus();
    metrics = new CreditsMetrics(new Metrics('credits'));
    credits = new CreditsService(standInRepository(books) as CreditsRepository, bus, metrics);
  });

  describe('accounts and keys', () => {
    it('opens an account with its credits and a default key that authenticates it', async () => {
      const made = await credits.createAccount({ name: 'acme', credits: 250, style: 'legacy' });
      expect(books.balanceOf(made.accountId)).toBe(250);
      expect(await credits.resolveKey(hashApiKey(made.apiKey))).toEqual({
        found: true,
        key: {
          accountId: made.accountId,
          apiKeyId: made.apiKeyId,
          apiKeyName: 'default',
          style: 'legacy',
          plan: 'payg',
          mode: 'live',
          scope: 'full',
        },
      });
      expect(made.apiKey).toMatch(/^ev_(?!test_)[A-Za-z0-9_-]{43}$/);
      expect(await credits.resolveKey(hashApiKey(`${made.apiKey}x`))).toEqual({ found: false });
    });

    it('opens an account without credits at zero, in the current style', async () => {
      const made = await credits.createAccount({ name: 'acme', credits: 0 });
      expect(await credits.balance({ accountId: made.accountId, apiKeyId: made.apiKeyId })).toMatchObject({
        balance: 0,
        added: 0,
        consumed: 0,
        apiKeyName: 'default',
      });
      const resolved = await credits.resolveKey(hashApiKey(made.apiKey));
      expect(resolved.found && resolved.key.style).toBe('current');
    });

    it('adds credits to an account, and refuses an unknown one', async () => {
      const account = books.account(10);
      expect(await credits.addCredits({ accountId: account, credits: 90 })).toEqual({
        accountId: account,
        creditsBalance: 100,
        creditsAdded: 100,
      });
      const unknown = randomUUID() as AccountId;
      expect((await refusal(credits.addCredits({ accountId: unknown, credits: 5 }))).code).toBe(
        'ACCOUNT_NOT_FOUND',
      );
      expect((await refusal(credits.balance({ accountId: unknown, apiKeyId: randomUUID() }))).code).toBe(
        'ACCOUNT_NOT_FOUND',
      );
      expect((await refusal(credits.listKeys(unknown))).code).toBe('ACCOUNT_NOT_FOUND');
      expect((await refusal(credits.createKey({ accountId: unknown, name: 'ci' }))).code).toBe(
        'ACCOUNT_NOT_FOUND',
      );
    });

    it('makes further keys that authenticate the same account and are listed with it', async () => {
      const account = books.account(10);
      const key = await credits.createKey({ accountId: account, name: 'ci', style: 'legacy' });
      expect(key).toMatchObject({ accountId: account, apiKeyName: 'ci', style: 'legacy' });
      const resolved = await credits.resolveKey(hashApiKey(key.apiKey));
      expect(resolved.found && resolved.key.accountId).toBe(account);
      const { keys } = await credits.listKeys(account);
      expect(keys).toEqual([
        expect.objectContaining({ apiKeyId: key.apiKeyId, name: 'ci', revokedAt: null }),
      ]);
    });

    it('makes a sandbox key, told by its ev_test_ prefix, whose mode and scope travel with it', async () => {
      const account = books.account(10);
      const key = await credits.createKey({
        accountId: account,
        name: 'tests',
        mode: 'sandbox',
        scope: 'verify',
      });
      expect(key.apiKey).toMatch(/^ev_test_[A-Za-z0-9_-]{43}$/);
      expect(key).toMatchObject({
        mode: 'sandbox',
        scope: 'verify',
        expiresAt: null,
        prefix: key.apiKey.slice(0, 15),
      });
      const resolved = await credits.resolveKey(hashApiKey(key.apiKey));
      expect(resolved.found && [resolved.key.mode, resolved.key.scope]).toEqual(['sandbox', 'verify']);
      expect(await credits.balance({ accountId: account, apiKeyId: key.apiKeyId })).toMatchObject({
        mode: 'sandbox',
        balance: 10,
      });
      const { keys } = await credits.listKeys(account);
      expect(keys).toEqual([expect.objectContaining({ mode: 'sandbox', scope: 'verify', expiresAt: null })]);
    });

    it('keeps a key expiry, and refuses one that is not in the future', async () => {
      const account = books.account(10);
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const key = await credits.createKey({ accountId: account, expiresAt });
      expect(key).toMatchObject({ mode: 'live', scope: 'full', expiresAt });
      const past = new Date(Date.now() - 1_000).toISOString();
      const refused = await refusal(credits.createKey({ accountId: account, expiresAt: past }));
      expect(refused.code).toBe('INVALID_REQUEST');
      expect((await credits.listKeys(account)).keys).toHaveLength(1);
    });

    it.each([
      ['its id', (made: { apiKeyId: string }) => made.apiKeyId],
      ['the key itself', (made: { apiKey: string }) => made.apiKey],
    ])(
      'revokes a key named by %s: it no longer authenticates, and gateways are told before the reply',
      async (_, refOf) => {
        const made = await credits.createAccount({ name: 'acme', credits: 5 });
        bus.flushAtOnce = false;
        let replied = false;
        const revoking = credits.revokeKey(refOf(made)).then((summary) => {
          replied = true;
          return summary;
        });
        await new Promise((resolve) => setImmediate(resolve));
        expect(bus.published).toEqual([
          {
            subject: Broadcasts.keyChanged,
            payload: { apiKeyId: made.apiKeyId, keyHash: hashApiKey(made.apiKey) },
          },
        ]);
        // The reply waits until the broadcast has reached the gateways.
        expect(replied).toBe(false);
        bus.completeFlush();
        const summary = await revoking;
        expect(summary).toMatchObject({ apiKeyId: made.apiKeyId, revokedAt: expect.any(String) });
        expect(await credits.resolveKey(hashApiKey(made.apiKey))).toEqual({ found: false });
      },
    );

    it("revokes a key of the account with another of its keys, telling the gateways, but never the caller's own", async () => {
      const made = await credits.createAccount({ name: 'acme', credits: 5 });
      const other = await credits.createKey({ accountId: made.accountId, name: 'ci' });
      const own = { accountId: made.accountId, callerApiKeyId: made.apiKeyId };
      const refused = await refusal(credits.revokeAccountKey({ ...own, apiKeyId: made.apiKeyId }));
      expect(refused.code).toBe('CANNOT_REVOKE_CURRENT_KEY');
      expect(bus.published).toEqual([]);

      const revoked = await credits.revokeAccountKey({ ...own, apiKeyId: other.apiKeyId });
      expect(revoked).toMatchObject({ apiKeyId: other.apiKeyId, revokedAt: expect.any(String) });
      expect(bus.published).toEqual([
        {
          subject: Broadcasts.keyChanged,
          payload: { apiKeyId: other.apiKeyId, keyHash: hashApiKey(other.apiKey) },
        },
      ]);
      expect(await credits.resolveKey(hashApiKey(other.apiKey))).toEqual({ found: false });
      expect(await credits.resolveKey(hashApiKey(made.apiKey))).toMatchObject({ found: true });
    });

    it("leaves other accounts' keys alone, and lets a sandbox key see and revoke sandbox keys only", async () => {
      const a = await credits.createAccount({ name: 'a', credits: 5 });
      const b = await credits.createAccount({ name: 'b', credits: 5 });
      const sandbox = await credits.createKey({ accountId: a.accountId, mode: 'sandbox' });
      const foreign = await refusal(
        credits.revokeAccountKey({
          accountId: a.accountId,
          callerApiKeyId: a.apiKeyId,
          apiKeyId: b.apiKeyId,
        }),
      );
      expect(foreign.code).toBe('API_KEY_NOT_FOUND');
      const bySandbox = {
        accountId: a.accountId,
        callerApiKeyId: sandbox.apiKeyId,
        mode: 'sandbox' as const,
      };
      expect((await refusal(credits.revokeAccountKey({ ...bySandbox, apiKeyId: a.apiKeyId }))).code).toBe(
        'API_KEY_NOT_FOUND',
      );
      expect((await credits.listKeys(a.accountId, 'sandbox')).keys.map((k) => k.apiKeyId)).toEqual([
        sandbox.apiKeyId,
      ]);
      expect(await credits.resolveKey(hashApiKey(a.apiKey))).toMatchObject({ found: true });
      expect(await credits.resolveKey(hashApiKey(b.apiKey))).toMatchObject({ found: true });
      expect(bus.published).toEqual([]);
    });

    it('refuses a key beyond the active keys an account may hold, counting neither revoked nor expired ones', async () => {
      const account = books.account(0);
      const keys = [];
      for (let i = 0; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++)
        keys.push(await credits.createKey({ accountId: account }));
      const refused = await refusal(credits.createKey({ accountId: account }));
      expect(refused).toMatchObject({
        code: 'INVALID_REQUEST',
        details: { max: MAX_ACTIVE_KEYS_PER_ACCOUNT },
      });
      books.keys.get(keys[0]!.apiKeyId)!.revoked_at = new Date();
      books.keys.get(keys[1]!.apiKeyId)!.expires_at = new Date(Date.now() - 1);
      await credits.createKey({ accountId: account });
      await credits.createKey({ accountId: account });
      expect((await refusal(credits.createKey({ accountId: account }))).code).toBe('INVALID_REQUEST');
    });

    it('changes a key style and tells the gateways to drop what they cached of it', async () => {
      const made = await credits.createAccount({ name: 'acme', credits: 5 });
      const style: ResponseStyle = 'legacy';
      expect(await credits.setStyle(made.apiKeyId, style)).toMatchObject({ apiKeyId: made.apiKeyId, style });
      const resolved = await credits.resolveKey(hashApiKey(made.apiKey));
      expect(resolved.found && resolved.key.style).toBe('legacy');
      expect(bus.published).toEqual([
        { subject: Broadcasts.keyChanged, payload: { apiKeyId: made.apiKeyId, keyHash: '' } },
      ]);
    });

    it('refuses to revoke or restyle a key that does not exist, and tells nobody', async () => {
      expect((await refusal(credits.revokeKey(randomUUID()))).code).toBe('API_KEY_NOT_FOUND');
      expect((await refusal(credits.setStyle('ev_live_nope', 'legacy'))).code).toBe('API_KEY_NOT_FOUND');
      expect(bus.published).toEqual([]);
    });
  });

  describe('reserve', () => {
    it('takes the credits from the balance and counts them by what they pay for', async () => {
      const account = books.account(100);
      const reply = await credits.reserve({ accountId: account, idempotencyKey: 'bulk:r1', amount: 30 });
      expect(reply).toEqual({
        reservationId: expect.any(String),
        amount: 30,
        balance: 70,
        replayed: false,
      });
      expect(books.balanceOf(account)).toBe(70);
      expect(await counted(metrics.consumed, 'bulk')).toBe(30);
    });

    it('answers a repeated key with the first reservation and charges it once', async () => {
      const account = books.account(100);
      const req = { accountId: account, idempotencyKey: 'single:r1', amount: 1 };
      const first = await credits.reserve(req);
      const again = await credits.reserve(req);
      expect(again).toEqual({ ...first, replayed: true });
      expect(books.balanceOf(account)).toBe(99);
      expect(await counted(metrics.consumed, 'single')).toBe(1);
    });

    it('refuses what the balance does not cover, saying how much is needed and there, and takes nothing', async () => {
      const account = books.account(10);
      const err = await refusal(
        credits.reserve({ accountId: account, idempotencyKey: 'file:j1', amount: 50 }),
      );
      expect(err.toBody()).toEqual({
        code: 'INSUFFICIENT_CREDITS',
        message: 'This needs 50 credits and the account has 10',
        details: { required: 50, available: 10 },
      });
      expect(books.balanceOf(account)).toBe(10);
      expect(await counted(metrics.consumed, 'file')).toBe(0);
    });

    it('refuses an unknown account', async () => {
      const err = await refusal(
        credits.reserve({ accountId: randomUUID() as AccountId, idempotencyKey: 'k', amount: 1 }),
      );
      expect(err.code).toBe('ACCOUNT_NOT_FOUND');
    });

    it('answers a key another call reserved at the same moment with that reservation, charged once', async () => {
      const account = books.account(100);
      books.racing.set('bulk:r9', 20);
      const reply = await credits.reserve({ accountId: account, idempotencyKey: 'bulk:r9', amount: 20 });
      expect(reply).toEqual({
        reservationId: books.reservation(account, 'bulk:r9')!.id,
        amount: 20,
        balance: 80,
        replayed: true,
      });
      expect(books.balanceOf(account)).toBe(80);
    });
  });

  describe('reserveMany', () => {
    it('answers each as reserve would, taking a smaller one that fits behind a larger one refused', async () => {
      const account = books.account(100);
      const key = (k: string) => ({ accountId: account, idempotencyKey: `single:${k}` });
      const { outcomes } = await credits.reserveMany([
        { ...key('a'), amount: 60 },
        { ...key('b'), amount: 50 },
        { ...key('c'), amount: 30 },
      ]);
      expect(outcomes.map((o) => (o.ok ? o.reply.amount : o.error.code))).toEqual([
        60,
        'INSUFFICIENT_CREDITS',
        30,
      ]);
      expect(outcomes[1]).toEqual({
        ok: false,
        error: {
          code: 'INSUFFICIENT_CREDITS',
          message: 'This needs 50 credits and the account has 40',
          details: { required: 50, available: 40 },
        },
      });
      expect(books.balanceOf(account)).toBe(10);
    });

    it('holds a key repeated in one request once and answers its repeats as replays', async () => {
      const account = books.account(100);
      const req = { accountId: account, idempotencyKey: 'single:dup', amount: 5 };
      const { outcomes } = await credits.reserveMany([req, req]);
      expect(outcomes[0]).toMatchObject({ ok: true, reply: { replayed: false, balance: 95 } });
      expect(outcomes[1]).toEqual(
        outcomes[0]!.ok ? { ok: true, reply: { ...outcomes[0].reply, replayed: true } } : undefined,
      );
      expect(books.balanceOf(account)).toBe(95);
    });

    it('closes the reservations used in full that came with it, and says how many', async () => {
      const account = books.account(100);
      books.hold(account, 'single:old1', 1);
      books.hold(account, 'single:old2', 1);
      const { closed } = await credits.reserveMany(
        [{ accountId: account, idempotencyKey: 'single:new', amount: 1 }],
        [
          { accountId: account, idempotencyKey: 'single:old1' },
          { accountId: account, idempotencyKey: 'single:old2' },
          { accountId: account, idempotencyKey: 'single:none' },
        ],
      );
      expect(closed).toBe(2);
      expect(books.reservation(account, 'single:old1')).toMatchObject({ status: 'settled', used: 1 });
      // Closing changes no balance: the credits were taken when reserved.
      expect(books.balanceOf(account)).toBe(97);
    });

    it('holds them one by one when another call reserved one of the keys at the same moment', async () => {
      const account = books.account(30);
      books.racing.set('bulk:b', 10);
      const key = (k: string, amount: number) => ({
        accountId: account,
        idempotencyKey: `bulk:${k}`,
        amount,
      });
      const { outcomes, closed } = await credits.reserveMany([key('a', 10), key('b', 10), key('c', 15)], []);
      expect(outcomes.map((o) => (o.ok ? [o.reply.amount, o.reply.replayed] : o.error.code))).toEqual([
        [10, false],
        [10, true],
        'INSUFFICIENT_CREDITS',
      ]);
      expect(closed).toBe(0);
      expect(books.balanceOf(account)).toBe(10);
    });
  });

  describe('settle', () => {
    it('charges what was used and gives back the rest, once', async () => {
      const account = books.account(100);
      await credits.reserve({ accountId: account, idempotencyKey: 'file:j1', amount: 40 });
      const settled = await credits.settle({ accountId: account, idempotencyKey: 'file:j1', used: 25 });
      expect(settled).toEqual({
        reservationId: books.reservation(account, 'file:j1')!.id,
        used: 25,
        refunded: 15,
        balance: 75,
        replayed: false,
      });
      const again = await credits.settle({ accountId: account, idempotencyKey: 'file:j1', used: 0 });
      expect(again).toEqual({ ...settled, replayed: true });
      expect(books.balanceOf(account)).toBe(75);
      expect(await counted(metrics.refunded, 'file')).toBe(15);
    });

    it('refuses to charge more than was reserved, and keeps the reservation', async () => {
      const account = books.account(100);
      await credits.reserve({ accountId: account, idempotencyKey: 'bulk:r1', amount: 10 });
      const err = await refusal(credits.settle({ accountId: account, idempotencyKey: 'bulk:r1', used: 12 }));
      expect(err.toBody()).toEqual({
        code: 'INVALID_REQUEST',
        message: 'used (12) exceeds the reservation (10)',
      });
      expect(books.reservation(account, 'bulk:r1')!.status).toBe('reserved');
      expect(books.balanceOf(account)).toBe(90);
    });

    it('refuses a reservation that does not exist', async () => {
      const account = books.account(100);
      const err = await refusal(credits.settle({ accountId: account, idempotencyKey: 'bulk:none', used: 1 }));
      expect(err.code).toBe('NOT_FOUND');
      expect(err.message).toContain('bulk:none');
    });

    it('answers a settle that comes after the sweep refunded the reservation as a replay of the refund', async () => {
      const account = books.account(100);
      books.hold(account, 'single:late', 3, true);
      expect(await credits.sweepExpired()).toBe(1);
      expect(
        await credits.settle({ accountId: account, idempotencyKey: 'single:late', used: 3 }),
      ).toMatchObject({
        used: 0,
        refunded: 3,
        balance: 100,
        replayed: true,
      });
    });
  });

  describe('sweepExpired', () => {
    it('refunds whole every reservation held past its expiry, page after page, and no other', async () => {
      const account = books.account(100);
      for (let i = 0; i < 5; i++) books.hold(account, `single:dead${i}`, 2, true);
      books.hold(account, 'file:alive', 20);
      expect(books.balanceOf(account)).toBe(70);
      expect(await credits.sweepExpired(2)).toBe(5);
      expect(books.balanceOf(account)).toBe(80);
      expect(books.reservation(account, 'single:dead0')).toMatchObject({ status: 'expired', refunded: 2 });
      expect(books.reservation(account, 'file:alive')!.status).toBe('reserved');
      expect(await counted(metrics.refunded, 'single')).toBe(10);
      expect(await credits.sweepExpired(2)).toBe(0);
    });
  });
});
