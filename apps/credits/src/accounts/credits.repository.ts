import type { AccountId, ResponseStyle } from '@emailverify/contracts';
import { type DataSource, type EntityManager, returnedRows } from '@emailverify/persistence';

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
  created_at: Date;
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

const ACCOUNT_COLUMNS = `id, name, plan, balance::int AS balance, consumed::int AS consumed, added::int AS added, updated_at`;
const KEY_COLUMNS = `id, account_id, name, prefix, style, created_at, revoked_at`;
const RESERVATION_COLUMNS = `id, account_id, idempotency_key, amount::int AS amount, used::int AS used, refunded::int AS refunded, status,
  (expires_at IS NOT NULL AND expires_at <= now()) AS expired`;

/**
 * All SQL of the credits schema. Queries on customer data take the account (AccountId); what works without one is
 * named for who may use it: authentication by key hash, operators' key commands, the expiry sweep.
 */
export class CreditsRepository {
  constructor(private readonly db: DataSource) {}

  transaction<T>(work: (tx: CreditsTx) => Promise<T>): Promise<T> {
    return this.db.transaction((manager) => work(new CreditsTx(manager)));
  }

  /** Authentication itself: which account (if any) a presented key belongs to; no account is known yet. */
  async findActiveKeyByHash(keyHash: string): Promise<(KeyRow & { plan: string }) | undefined> {
    const rows: Array<KeyRow & { plan: string }> = await this.db.query(
      `SELECT k.id, k.account_id, k.name, k.prefix, k.style, k.created_at, k.revoked_at, a.plan
         FROM credits.api_keys k JOIN credits.accounts a ON a.id = k.account_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    return rows[0];
  }

  /**
   * Internal, across accounts: reservations still held past their expiry, oldest first, for the sweep. Each is
   * then refunded in its own transaction that locks its account first, as reserve and settle do.
   */
  async expiredReservationsInternal(
    limit: number,
  ): Promise<Array<{ account_id: AccountId; idempotency_key: string }>> {
    return this.db.query(
      `SELECT account_id, idempotency_key FROM credits.reservations
        WHERE status = 'reserved' AND expires_at IS NOT NULL AND expires_at <= now()
        ORDER BY expires_at LIMIT $1`,
      [limit],
    );
  }

  async findAccount(accountId: AccountId): Promise<AccountRow | undefined> {
    const rows: AccountRow[] = await this.db.query(
      `SELECT ${ACCOUNT_COLUMNS} FROM credits.accounts WHERE id = $1`,
      [accountId],
    );
    return rows[0];
  }

  async findKey(accountId: AccountId, keyId: string): Promise<KeyRow | undefined> {
    const rows: KeyRow[] = await this.db.query(
      `SELECT ${KEY_COLUMNS} FROM credits.api_keys WHERE account_id = $1 AND id = $2`,
      [accountId, keyId],
    );
    return rows[0];
  }

  /** Operators address keys by id or by the key itself, without knowing the account. */
  async findKeyForOperator(keyId: string | null, keyHash: string | null): Promise<KeyRow | undefined> {
    const rows: KeyRow[] = await this.db.query(
      `SELECT ${KEY_COLUMNS} FROM credits.api_keys WHERE id = $1 OR key_hash = $2`,
      [keyId, keyHash],
    );
    return rows[0];
  }

  async listKeys(accountId: AccountId): Promise<KeyRow[]> {
    return this.db.query(
      `SELECT ${KEY_COLUMNS} FROM credits.api_keys WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    );
  }

  /** Operators (admin CLI) change a key found by findKeyForOperator, without an account. */
  async setKeyStyleForOperator(keyId: string, style: ResponseStyle): Promise<KeyRow | undefined> {
    const raw: unknown = await this.db.query(
      `UPDATE credits.api_keys SET style = $2 WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [keyId, style],
    );
    return returnedRows<KeyRow>(raw)[0];
  }

  /**
   * Operators (admin CLI): marks a key found by findKeyForOperator revoked (once) and returns it with its hash,
   * for the revocation broadcast.
   */
  async revokeKeyForOperator(keyId: string): Promise<(KeyRow & { key_hash: string }) | undefined> {
    const raw: unknown = await this.db.query(
      `UPDATE credits.api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1
       RETURNING ${KEY_COLUMNS}, key_hash`,
      [keyId],
    );
    return returnedRows<KeyRow & { key_hash: string }>(raw)[0];
  }
}

/** Statements that must agree run inside one transaction through this object. */
export class CreditsTx {
  constructor(private readonly m: EntityManager) {}

  async insertAccount(a: { id: AccountId; name: string; plan: string }): Promise<void> {
    await this.m.query(`INSERT INTO credits.accounts (id, name, plan) VALUES ($1, $2, $3)`, [
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
  }): Promise<void> {
    await this.m.query(
      `INSERT INTO credits.api_keys (id, account_id, name, prefix, key_hash, style) VALUES ($1, $2, $3, $4, $5, $6)`,
      [k.id, k.accountId, k.name, k.prefix, k.hash, k.style],
    );
  }

  /** Locks the account row: every balance change of one account is serialised behind this lock. */
  async lockAccount(accountId: AccountId): Promise<AccountRow | undefined> {
    const rows: AccountRow[] = await this.m.query(
      `SELECT ${ACCOUNT_COLUMNS} FROM credits.accounts WHERE id = $1 FOR UPDATE`,
      [accountId],
    );
    return rows[0];
  }

  async findReservation(
    accountId: AccountId,
    idempotencyKey: string,
    lock: boolean,
  ): Promise<ReservationRow | undefined> {
    const rows: ReservationRow[] = await this.m.query(
      `SELECT ${RESERVATION_COLUMNS} FROM credits.reservations WHERE account_id = $1 AND idempotency_key = $2${lock ? ' FOR UPDATE' : ''}`,
      [accountId, idempotencyKey],
    );
    return rows[0];
  }

  async insertReservation(r: {
    id: string;
    accountId: AccountId;
    idempotencyKey: string;
    amount: number;
    holdSeconds?: number;
  }): Promise<void> {
    await this.m.query(
      `INSERT INTO credits.reservations (id, account_id, idempotency_key, amount, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [r.id, r.accountId, r.idempotencyKey, r.amount, r.holdSeconds ?? null],
    );
  }

  /** Ends a reservation: `settled` by its holder, or `expired` when the sweep refunded it whole. */
  async markEnded(
    accountId: AccountId,
    reservationId: string,
    outcome: { status: 'settled' | 'expired'; used: number; refunded: number },
  ): Promise<void> {
    await this.m.query(
      `UPDATE credits.reservations SET status = $3, used = $4, refunded = $5, settled_at = now()
        WHERE account_id = $1 AND id = $2`,
      [accountId, reservationId, outcome.status, outcome.used, outcome.refunded],
    );
  }

  /**
   * Applies a balance change and writes its ledger row in the same transaction. `consumed` and `added`
   * move with it so the account's counters always agree with the ledger.
   */
  async applyChange(change: {
    accountId: AccountId;
    kind: 'grant' | 'reserve' | 'refund';
    amount: number;
    consumed?: number;
    reservationId?: string;
  }): Promise<AccountRow> {
    const added = change.kind === 'grant' ? change.amount : 0;
    const raw: unknown = await this.m.query(
      `UPDATE credits.accounts
          SET balance = balance + $2, added = added + $3, consumed = consumed + $4, updated_at = now()
        WHERE id = $1
        RETURNING ${ACCOUNT_COLUMNS}`,
      [change.accountId, change.amount, added, change.consumed ?? 0],
    );
    const account = returnedRows<AccountRow>(raw)[0];
    if (!account) throw new Error(`account ${change.accountId} vanished inside its own transaction`);
    await this.m.query(
      `INSERT INTO credits.ledger (account_id, kind, amount, reservation_id, balance_after) VALUES ($1, $2, $3, $4, $5)`,
      [change.accountId, change.kind, change.amount, change.reservationId ?? null, account.balance],
    );
    return account;
  }
}
