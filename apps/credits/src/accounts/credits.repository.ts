import { Injectable } from '@nestjs/common';
import type {
  AccountId,
  KeyMode,
  KeyScope,
  ResponseStyle,
  UsageRecordEntry,
  VerificationStatus,
} from '@emailverify/contracts';
import { columns, NO_FLUSH_WAIT, prepared, type Queryable, Sql } from '@emailverify/persistence';

export interface AccountRow {
  id: AccountId;
  name: string;
  plan: string;
  balance: number;
  consumed: number;
  added: number;
  updated_at: Date;
}

export interface KeyRow {
  id: string;
  account_id: AccountId;
  name: string;
  prefix: string;
  style: ResponseStyle;
  mode: KeyMode;
  scope: KeyScope;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface ReservationRow {
  id: string;
  account_id: AccountId;
  idempotency_key: string;
  amount: number;
  used: number | null;
  refunded: number | null;
  status: 'reserved' | 'settled' | 'expired';
  /** Its hold has run out (PostgreSQL's clock): the sweep may refund it. */
  expired: boolean;
}

export interface LedgerRow {
  id: string;
  kind: 'grant' | 'reserve' | 'refund';
  amount: number;
  balance_after: number;
  created_at: Date;
  /** The idempotency key of the reservation a reserve or refund row belongs to; null for a grant. */
  idempotency_key: string | null;
}

/** One day's credits from the ledger: granted, and charged less refunded. */
export interface LedgerDayRow {
  day: string;
  added: number;
  used: number;
}

export interface UsageDayRow {
  day: string;
  mode: KeyMode;
  status: VerificationStatus;
  count: number;
}

export type ReserveOutcome =
  | { kind: 'reserved'; balance: number }
  | { kind: 'replayed'; id: string; amount: number; balance: number }
  | { kind: 'short'; balance: number }
  | { kind: 'no-account' };

const ACCOUNT_COLUMNS = `id, name, plan, balance::int AS balance, consumed::int AS consumed, added::int AS added, updated_at`;
const KEY_COLUMNS = `id, account_id, name, prefix, style, mode, scope, created_at, expires_at, revoked_at`;
const RESERVATION_COLUMNS = `id, account_id, idempotency_key, amount::int AS amount, used::int AS used, refunded::int AS refunded, status,
  (expires_at IS NOT NULL AND expires_at <= now()) AS expired`;

/**
 * CreditsRepository.reserveMany. Per account, the fresh reservations (no prior one under their key) are taken
 * in their order while their running sum fits the balance read under the account row's lock (accounts locked
 * in id order, so two statements never wait on each other in a cycle); the account row is written once with
 * their total, and every reservation gets its own row and ledger row with the balance after it. The same
 * statement closes reservations used in full ($6, $7, as CLOSE_USED), skipping one whose row another
 * statement holds (a settle or the sweep ending it: it then ends as that one says), so that it never waits on
 * a reservation row while it holds account rows.
 */
const RESERVE_MANY = prepared(
  'credits_reserve_many',
  `WITH ${NO_FLUSH_WAIT}, req AS MATERIALIZED (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::int[])
                  WITH ORDINALITY AS r(id, account_id, idempotency_key, amount, hold_seconds, ord)
       ), prior AS MATERIALIZED (
         SELECT req.ord, p.id, p.amount FROM req
          CROSS JOIN LATERAL (
            SELECT p.id, p.amount FROM credits.reservations p
             WHERE p.account_id = req.account_id AND p.idempotency_key = req.idempotency_key LIMIT 1) AS p
       ), locked AS MATERIALIZED (
         SELECT a.id, a.balance FROM credits.accounts a WHERE a.id = ANY ($2::uuid[]) ORDER BY a.id FOR UPDATE
       ), fresh AS MATERIALIZED (
         SELECT req.*, sum(req.amount) OVER (PARTITION BY req.account_id ORDER BY req.ord) AS running
           FROM req WHERE NOT EXISTS (SELECT 1 FROM prior WHERE prior.ord = req.ord)
       ), granted AS MATERIALIZED (
         SELECT f.*, l.balance - f.running AS balance_after
           FROM fresh f JOIN locked l ON l.id = f.account_id WHERE f.running <= l.balance
       ), totals AS MATERIALIZED (
         SELECT account_id, sum(amount) AS total FROM granted GROUP BY account_id
       ), debit AS (
         UPDATE credits.accounts a
            SET balance = a.balance - t.total, consumed = a.consumed + t.total, updated_at = now()
           FROM totals t
          WHERE a.id = ANY ($2::uuid[]) AND a.id = t.account_id
         RETURNING a.id
       ), held AS (
         INSERT INTO credits.reservations (id, account_id, idempotency_key, amount, expires_at)
         SELECT id, account_id, idempotency_key, amount, now() + make_interval(secs => hold_seconds)
           FROM granted ORDER BY ord
         RETURNING id
       ), entry AS (
         INSERT INTO credits.ledger (account_id, kind, amount, reservation_id, balance_after)
         SELECT g.account_id, 'reserve', -g.amount, g.id, g.balance_after
           FROM granted g JOIN held h ON h.id = g.id ORDER BY g.ord
       ), closing AS MATERIALIZED (
         SELECT r.id FROM unnest($6::uuid[], $7::text[]) AS s(account_id, idempotency_key)
          CROSS JOIN LATERAL (
            SELECT r.id FROM credits.reservations r
             WHERE r.account_id = s.account_id AND r.idempotency_key = s.idempotency_key AND r.status = 'reserved'
               FOR UPDATE SKIP LOCKED) AS r
       ), closed AS (
         UPDATE credits.reservations r
            SET status = 'settled', used = r.amount, refunded = 0, settled_at = now()
          WHERE r.id = ANY (ARRAY(SELECT id FROM closing))
         RETURNING r.id
       )
       SELECT req.ord::int AS ord, (SELECT count(*) FROM closed)::int AS closed,
              CASE WHEN l.id IS NULL THEN 'no-account'
                   WHEN p.id IS NOT NULL THEN 'replayed'
                   WHEN g.id IS NOT NULL THEN 'reserved'
                   ELSE 'short' END AS kind,
              p.id AS prior_id, p.amount::int AS prior_amount,
              COALESCE(g.balance_after, l.balance - COALESCE(t.total, 0))::int AS balance
         FROM req
         LEFT JOIN prior p ON p.ord = req.ord
         LEFT JOIN granted g ON g.ord = req.ord
         LEFT JOIN locked l ON l.id = req.account_id
         LEFT JOIN totals t ON t.account_id = req.account_id
        CROSS JOIN no_flush_wait
        ORDER BY req.ord`,
);

/** CreditsRepository.endReservation (settle, and the expiry sweep). */
const END_RESERVATION = prepared(
  'credits_end_reservation',
  `WITH ${NO_FLUSH_WAIT}, ended AS (
           UPDATE credits.reservations
              SET status = $4, used = $3, refunded = amount - $3, settled_at = now()
            WHERE account_id = $1 AND idempotency_key = $2 AND status = 'reserved' AND amount >= $3
              AND ($4 = 'settled' OR (expires_at IS NOT NULL AND expires_at <= now()))
           RETURNING id, used::int AS used, refunded::int AS refunded
         ), credit AS (
           UPDATE credits.accounts a
              SET balance = a.balance + ended.refunded, consumed = a.consumed - ended.refunded, updated_at = now()
             FROM ended
            WHERE a.id = $1 AND ended.refunded > 0
           RETURNING a.balance
         ), entry AS (
           INSERT INTO credits.ledger (account_id, kind, amount, reservation_id, balance_after)
           SELECT $1, 'refund', ended.refunded, ended.id, credit.balance FROM ended, credit
         )
         SELECT ended.id, ended.used, ended.refunded,
                COALESCE((SELECT balance::int FROM credit),
                         (SELECT balance::int FROM credits.accounts WHERE id = $1)) AS balance
           FROM ended, no_flush_wait`,
);

/**
 * CreditsRepository.closeUsedReservations. The statements here that take a list of reservations find each by
 * its key through the key's index (LATERAL ... LIMIT 1, `id = ANY(ARRAY(...))`): prepared, their generic plan is
 * made once per connection, and one made while the table was small joined the list to a scan of every
 * reservation, a scan that grew with the table.
 */
const CLOSE_USED = prepared(
  'credits_close_used',
  `WITH ${NO_FLUSH_WAIT}, ended AS (
     UPDATE credits.reservations r
        SET status = 'settled', used = r.amount, refunded = 0, settled_at = now()
      WHERE r.id = ANY (ARRAY(
              SELECT p.id FROM unnest($1::uuid[], $2::text[]) AS s(account_id, idempotency_key)
               CROSS JOIN LATERAL (
                 SELECT p.id FROM credits.reservations p
                  WHERE p.account_id = s.account_id AND p.idempotency_key = s.idempotency_key LIMIT 1) AS p))
        AND r.status = 'reserved'
     RETURNING r.id
   )
   SELECT count(*)::int AS closed FROM ended, no_flush_wait`,
);

/**
 * CreditsRepository.recordUsage: counts the entries on today's row (UTC) of each account, mode and status, once
 * per key. An entry of an account that does not exist is dropped (the FK would refuse the whole statement);
 * rows are written in key order, so two records never wait on each other in a cycle.
 */
const RECORD_USAGE = prepared(
  'credits_record_usage',
  `WITH fresh AS (
     INSERT INTO credits.usage_keys (key) VALUES ($1) ON CONFLICT DO NOTHING RETURNING key
   ), entries AS (
     SELECT e.account_id, e.mode, e.status, sum(e.count) AS count
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::bigint[]) AS e(account_id, mode, status, count)
      WHERE EXISTS (SELECT 1 FROM credits.accounts a WHERE a.id = e.account_id)
      GROUP BY e.account_id, e.mode, e.status
   ), counted AS (
     INSERT INTO credits.usage_daily AS u (account_id, day, mode, status, count)
     SELECT e.account_id, (now() AT TIME ZONE 'UTC')::date, e.mode, e.status, e.count
       FROM entries e CROSS JOIN fresh
      ORDER BY e.account_id, e.mode, e.status
     ON CONFLICT (account_id, day, mode, status) DO UPDATE SET count = u.count + EXCLUDED.count
   )
   SELECT count(*)::int AS recorded FROM fresh`,
);

/**
 * All SQL of the credits schema. Queries on customer data take the account (AccountId); what works without one is
 * named for who may use it: authentication by key hash, operators' key commands, the expiry sweep.
 *
 * Reserve and settle commit without waiting for the WAL flush (NO_FLUSH_WAIT): they hold the account row until
 * their commit, so waiting for the disk there would serialise one account's verifications behind one flush
 * each. What a PostgreSQL crash can lose is the last fraction of a second of them, each whole (balance,
 * reservation and ledger row together, in order), and every such loss favours the customer: a lost reservation
 * was never charged, a lost settle leaves the reservation held until the sweep refunds it. Grants and account
 * changes commit as usual.
 */
@Injectable()
export class CreditsRepository {
  constructor(private readonly sql: Sql) {}

  transaction<T>(work: (tx: CreditsTx) => Promise<T>): Promise<T> {
    return this.sql.transaction((tx) => work(new CreditsTx(tx)));
  }

  /**
   * Authentication itself: which account (if any) a presented key belongs to; no account is known yet. A revoked
   * key, or one past its expiry (PostgreSQL's clock), is not found.
   */
  findActiveKeyByHash(keyHash: string): Promise<(KeyRow & { plan: string }) | undefined> {
    return this.sql.one<KeyRow & { plan: string }>(
      `SELECT k.id, k.account_id, k.name, k.prefix, k.style, k.mode, k.scope, k.created_at, k.expires_at,
              k.revoked_at, a.plan
         FROM credits.api_keys k JOIN credits.accounts a ON a.id = k.account_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
      [keyHash],
    );
  }

  /**
   * Internal, across accounts: reservations still held past their expiry, oldest first, for the sweep. Each is
   * then refunded by endReservation, which refunds only one still held.
   */
  expiredReservationsInternal(
    limit: number,
  ): Promise<Array<{ account_id: AccountId; idempotency_key: string }>> {
    return this.sql.rows<{ account_id: AccountId; idempotency_key: string }>(
      `SELECT account_id, idempotency_key FROM credits.reservations
        WHERE status = 'reserved' AND expires_at IS NOT NULL AND expires_at <= now()
        ORDER BY expires_at LIMIT $1`,
      [limit],
    );
  }

  findAccount(accountId: AccountId): Promise<AccountRow | undefined> {
    return this.sql.one<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM credits.accounts WHERE id = $1`, [
      accountId,
    ]);
  }

  findKey(accountId: AccountId, keyId: string): Promise<KeyRow | undefined> {
    return this.sql.one<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM credits.api_keys WHERE account_id = $1 AND id = $2`,
      [accountId, keyId],
    );
  }

  /**
   * Holds one reservation: `reserveMany` of one. The balance is taken only if it covers the amount, and a key
   * reserved before is not charged again. Two reservations racing on one new key cannot both stand: the loser's
   * statement is undone by the key's unique constraint, and it is answered from the winner's reservation
   * (`findReservation`). `consumed` moves with the balance, so `added - consumed = balance` at every moment and
   * settling without a refund leaves the account row alone.
   */
  async reserve(r: {
    id: string;
    accountId: AccountId;
    idempotencyKey: string;
    amount: number;
    holdSeconds: number | null;
  }): Promise<ReserveOutcome> {
    const { outcomes } = await this.reserveMany([r]);
    return outcomes[0]!;
  }

  /**
   * Holds many reservations (of one account or several) in one statement and one commit, each with its own
   * outcome, in their order: what `reserve` would answer for each, taken one after the other, except that a
   * reservation is `short` as soon as the running sum of the account's fresh ones before it and itself passes
   * the balance (a smaller one after a refused larger one is refused too; its `balance` then says it would fit,
   * and the caller may ask again). The statement is all-or-nothing: a key reserved at the same moment by
   * another statement undoes it whole (unique violation), as for `reserve`. Keys must be distinct. It also
   * closes reservations used in full (`close`, as closeUsedReservations), except one another statement is
   * ending at that moment.
   */
  async reserveMany(
    rs: ReadonlyArray<{
      id: string;
      accountId: AccountId;
      idempotencyKey: string;
      amount: number;
      holdSeconds: number | null;
    }>,
    close: ReadonlyArray<{ accountId: AccountId; idempotencyKey: string }> = [],
  ): Promise<{ outcomes: ReserveOutcome[]; closed: number }> {
    const rows = await this.sql.rows<{
      ord: number;
      closed: number;
      kind: ReserveOutcome['kind'];
      prior_id: string | null;
      prior_amount: number | null;
      balance: number | null;
    }>(RESERVE_MANY, [
      ...columns(rs, ['id', 'accountId', 'idempotencyKey', 'amount', 'holdSeconds']),
      ...columns(close, ['accountId', 'idempotencyKey']),
    ]);
    if (rows.length !== rs.length) throw new Error(`reserveMany: ${rows.length} outcomes for ${rs.length}`);
    const outcomes = rows.map((row): ReserveOutcome => {
      switch (row.kind) {
        case 'no-account':
          return { kind: 'no-account' };
        case 'replayed':
          return { kind: 'replayed', id: row.prior_id!, amount: row.prior_amount!, balance: row.balance! };
        case 'reserved':
          return { kind: 'reserved', balance: row.balance! };
        case 'short':
          return { kind: 'short', balance: row.balance! };
      }
    });
    return { outcomes, closed: rows[0]?.closed ?? 0 };
  }

  /**
   * Ends a reservation still held, in one statement: marks it (`settled` with what was used, or `expired` when
   * the sweep refunds it whole after its hold ran out) and gives back the unused credits with their ledger
   * row. Nothing to give back touches only the reservation, never the account row. The reservation row's lock
   * makes a second end of it (a repeated settle, the sweep) find it ended and change nothing; `undefined`
   * means this call ended nothing (see findReservation for why).
   */
  endReservation(e: {
    accountId: AccountId;
    idempotencyKey: string;
    used: number;
    status: 'settled' | 'expired';
  }): Promise<{ id: string; used: number; refunded: number; balance: number } | undefined> {
    return this.sql.one<{ id: string; used: number; refunded: number; balance: number }>(END_RESERVATION, [
      e.accountId,
      e.idempotencyKey,
      e.used,
      e.status,
    ]);
  }

  /**
   * Settles reservations used in full (used = amount, nothing refunded), many in one statement: only the
   * reservation rows change, and one already ended is left as it is. Returns how many it ended.
   */
  async closeUsedReservations(
    reservations: ReadonlyArray<{ accountId: AccountId; idempotencyKey: string }>,
  ): Promise<number> {
    const row = await this.sql.one<{ closed: number }>(
      CLOSE_USED,
      columns(reservations, ['accountId', 'idempotencyKey']),
    );
    return row?.closed ?? 0;
  }

  /** A reservation as it stands now, with the account's balance (for replies to repeated or refused calls). */
  findReservation(
    accountId: AccountId,
    idempotencyKey: string,
  ): Promise<(ReservationRow & { balance: number }) | undefined> {
    return this.sql.one<ReservationRow & { balance: number }>(
      `SELECT ${RESERVATION_COLUMNS}, (SELECT balance::int FROM credits.accounts WHERE id = $1) AS balance
         FROM credits.reservations WHERE account_id = $1 AND idempotency_key = $2`,
      [accountId, idempotencyKey],
    );
  }

  /** Operators address keys by id or by the key itself, without knowing the account. */
  findKeyForOperator(keyId: string | null, keyHash: string | null): Promise<KeyRow | undefined> {
    return this.sql.one<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM credits.api_keys WHERE id = $1 OR key_hash = $2`,
      [keyId, keyHash],
    );
  }

  /** The account's keys, oldest first; only those of `mode` when it is given. */
  listKeys(accountId: AccountId, mode: KeyMode | null = null): Promise<KeyRow[]> {
    return this.sql.rows<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM credits.api_keys
        WHERE account_id = $1 AND ($2::text IS NULL OR mode = $2)
        ORDER BY created_at, id`,
      [accountId, mode],
    );
  }

  /**
   * A customer revokes a key of their account (of `mode` when it is given; any other is not found): marked
   * revoked once, returned with its hash for the revocation broadcast.
   */
  revokeKey(
    accountId: AccountId,
    keyId: string,
    mode: KeyMode | null,
  ): Promise<(KeyRow & { key_hash: string }) | undefined> {
    return this.sql.one<KeyRow & { key_hash: string }>(
      `UPDATE credits.api_keys SET revoked_at = COALESCE(revoked_at, now())
        WHERE account_id = $1 AND id = $2 AND ($3::text IS NULL OR mode = $3)
       RETURNING ${KEY_COLUMNS}, key_hash`,
      [accountId, keyId, mode],
    );
  }

  /**
   * A page of the account's ledger, newest first: `limit` rows before the row `before` (a cursor), within
   * [from, to). Reserve and refund rows carry their reservation's idempotency key.
   */
  ledgerPage(q: {
    accountId: AccountId;
    limit: number;
    before: string | null;
    from: Date | null;
    to: Date | null;
  }): Promise<LedgerRow[]> {
    return this.sql.rows<LedgerRow>(
      `SELECT l.id::text AS id, l.kind, l.amount::int AS amount, l.balance_after::int AS balance_after,
              l.created_at, r.idempotency_key
         FROM credits.ledger l LEFT JOIN credits.reservations r ON r.id = l.reservation_id
        WHERE l.account_id = $1
          AND ($2::bigint IS NULL OR l.id < $2)
          AND ($3::timestamptz IS NULL OR l.created_at >= $3)
          AND ($4::timestamptz IS NULL OR l.created_at < $4)
        ORDER BY l.id DESC
        LIMIT $5`,
      [q.accountId, q.before, q.from, q.to, q.limit],
    );
  }

  /** Credits granted and used (charged less refunded) per UTC day of [from, to] (dates), days with a row only. */
  ledgerByDay(accountId: AccountId, from: string, to: string): Promise<LedgerDayRow[]> {
    return this.sql.rows<LedgerDayRow>(
      `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
              COALESCE(sum(amount) FILTER (WHERE kind = 'grant'), 0)::float8 AS added,
              COALESCE(-sum(amount) FILTER (WHERE kind <> 'grant'), 0)::float8 AS used
         FROM credits.ledger
        WHERE account_id = $1
          AND created_at >= ($2::date)::timestamp AT TIME ZONE 'UTC'
          AND created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
        GROUP BY 1`,
      [accountId, from, to],
    );
  }

  /** Verifications counted per UTC day of [from, to] (dates), mode and status; counted ones only. */
  usageByDay(accountId: AccountId, from: string, to: string): Promise<UsageDayRow[]> {
    return this.sql.rows<UsageDayRow>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, mode, status, count::float8 AS count
         FROM credits.usage_daily
        WHERE account_id = $1 AND day BETWEEN $2::date AND $3::date`,
      [accountId, from, to],
    );
  }

  /** Counts a usage record unless its key was counted already; true when it counted it. */
  async recordUsage(key: string, entries: readonly UsageRecordEntry[]): Promise<boolean> {
    const row = await this.sql.one<{ recorded: number }>(RECORD_USAGE, [
      key,
      entries.map((e) => e.accountId),
      entries.map((e) => e.mode),
      entries.map((e) => e.status),
      entries.map((e) => e.count),
    ]);
    return (row?.recorded ?? 0) > 0;
  }

  /** Internal: forgets usage-record keys older than a day (a retry comes within seconds), at most `limit`. */
  pruneUsageKeysInternal(limit: number): Promise<number> {
    return this.sql.affected(
      `DELETE FROM credits.usage_keys WHERE key IN (
         SELECT key FROM credits.usage_keys WHERE recorded_at < now() - interval '1 day' LIMIT $1)`,
      [limit],
    );
  }

  /** Operators (admin CLI) change a key found by findKeyForOperator, without an account. */
  setKeyStyleForOperator(keyId: string, style: ResponseStyle): Promise<KeyRow | undefined> {
    return this.sql.one<KeyRow>(
      `UPDATE credits.api_keys SET style = $2 WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [keyId, style],
    );
  }

  /**
   * Operators (admin CLI): marks a key found by findKeyForOperator revoked (once) and returns it with its hash,
   * for the revocation broadcast.
   */
  revokeKeyForOperator(keyId: string): Promise<(KeyRow & { key_hash: string }) | undefined> {
    return this.sql.one<KeyRow & { key_hash: string }>(
      `UPDATE credits.api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1
       RETURNING ${KEY_COLUMNS}, key_hash`,
      [keyId],
    );
  }
}

/** Statements that must agree run inside one transaction through this object. */
export class CreditsTx {
  constructor(private readonly tx: Queryable) {}

  async insertAccount(a: { id: AccountId; name: string; plan: string }): Promise<void> {
    await this.tx.affected(`INSERT INTO credits.accounts (id, name, plan) VALUES ($1, $2, $3)`, [
      a.id,
      a.name,
      a.plan,
    ]);
  }

  async insertKey(k: {
    id: string;
    accountId: AccountId;
    name: string;
    prefix: string;
    hash: string;
    style: ResponseStyle;
    mode: KeyMode;
    scope: KeyScope;
    expiresAt: Date | null;
  }): Promise<KeyRow> {
    const row = await this.tx.one<KeyRow>(
      `INSERT INTO credits.api_keys (id, account_id, name, prefix, key_hash, style, mode, scope, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING ${KEY_COLUMNS}`,
      [k.id, k.accountId, k.name, k.prefix, k.hash, k.style, k.mode, k.scope, k.expiresAt],
    );
    if (!row) throw new Error(`key ${k.id} was not inserted`);
    return row;
  }

  /** Keys of the account neither revoked nor expired (under the account row's lock: no race past a limit). */
  async countActiveKeys(accountId: AccountId): Promise<number> {
    const row = await this.tx.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM credits.api_keys
        WHERE account_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [accountId],
    );
    return row?.n ?? 0;
  }

  /** Locks the account row: every balance change of one account is serialised behind this lock. */
  lockAccount(accountId: AccountId): Promise<AccountRow | undefined> {
    return this.tx.one<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM credits.accounts WHERE id = $1 FOR UPDATE`,
      [accountId],
    );
  }

  /** Grants credits and writes their ledger row in the same transaction; `added` moves with the balance. */
  async applyChange(change: { accountId: AccountId; kind: 'grant'; amount: number }): Promise<AccountRow> {
    const account = await this.tx.one<AccountRow>(
      `UPDATE credits.accounts
          SET balance = balance + $2, added = added + $2, updated_at = now()
        WHERE id = $1
        RETURNING ${ACCOUNT_COLUMNS}`,
      [change.accountId, change.amount],
    );
    if (!account) throw new Error(`account ${change.accountId} vanished inside its own transaction`);
    await this.tx.affected(
      `INSERT INTO credits.ledger (account_id, kind, amount, balance_after) VALUES ($1, $2, $3, $4)`,
      [change.accountId, change.kind, change.amount, account.balance],
    );
    return account;
  }
}
