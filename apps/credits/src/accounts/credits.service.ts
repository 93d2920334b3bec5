import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  type AccountKeyRevokeRequest,
  type AccountId,
  type AccountCreateReply,
  type AccountCreateRequest,
  type AuthResolveReply,
  type BalanceAddReply,
  type BalanceAddRequest,
  type BalanceGetRequest,
  type BalanceReply,
  Broadcasts,
  type CloseUsedReply,
  type CloseUsedRequest,
  DomainError,
  isUuid,
  type KeyCreateReply,
  type KeyCreateRequest,
  type KeyListReply,
  type KeyChangedBroadcast,
  type KeyMode,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  type KeySummary,
  type ErrorBody,
  type ReserveManyReply,
  type ReserveOutcomeReply,
  type ReserveReply,
  type ReserveRequest,
  type ResponseStyle,
  type SettleReply,
  type SettleRequest,
} from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { isUniqueViolation } from '@emailverify/persistence';
import { CreditsMetrics } from '../credits.metrics';
import { generateApiKey, hashApiKey } from './api-key';
import { CreditsRepository, type KeyRow, type ReserveOutcome } from './credits.repository';

/**
 * Accounts, keys and balances. Every balance change is one statement or transaction with its ledger row, and
 * no account row is locked longer than one statement.
 */
@Injectable()
export class CreditsService {
  constructor(
    private readonly repo: CreditsRepository,
    @Inject(MessageBus) private readonly bus: Pick<MessageBus, 'publish' | 'flush'>,
    private readonly metrics: CreditsMetrics,
  ) {}

  async resolveKey(keyHash: string): Promise<AuthResolveReply> {
    const row = await this.repo.findActiveKeyByHash(keyHash);
    if (!row) return { found: false };
    return {
      found: true,
      key: {
        accountId: row.account_id,
        apiKeyId: row.id,
        apiKeyName: row.name,
        style: row.style,
        plan: row.plan,
        mode: row.mode,
        scope: row.scope,
      },
    };
  }

  async balance(req: BalanceGetRequest): Promise<BalanceReply> {
    const [account, key] = await Promise.all([
      this.repo.findAccount(req.accountId),
      this.repo.findKey(req.accountId, req.apiKeyId),
    ]);
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND', 'Account not found');
    return {
      accountId: account.id,
      apiKeyId: key?.id ?? req.apiKeyId,
      apiKeyName: key?.name ?? '',
      plan: account.plan,
      balance: account.balance,
      consumed: account.consumed,
      added: account.added,
      updatedAt: account.updated_at.toISOString(),
      mode: key?.mode ?? 'live',
    };
  }

  /**
   * Holds `amount` credits in one statement (see CreditsRepository.reserve): the balance never goes below
   * zero, and a repeated idempotency key returns the first reservation.
   */
  async reserve(req: ReserveRequest): Promise<ReserveReply> {
    const reservationId = randomUUID();
    let outcome: ReserveOutcome;
    try {
      outcome = await this.reserveOne(reservationId, req);
    } catch (err) {
      // The same key reserved at the same moment by another call: that one stands, this one changed nothing.
      if (!isUniqueViolation(err)) throw err;
      const prior = await this.repo.findReservation(req.accountId, req.idempotencyKey);
      if (!prior) throw err;
      outcome = { kind: 'replayed', id: prior.id, amount: prior.amount, balance: prior.balance };
    }
    const answered = this.answer(req, reservationId, outcome);
    if (!answered.ok)
      throw new DomainError(answered.error.code, answered.error.message, answered.error.details);
    return answered.reply;
  }

  /**
   * Holds many reservations in one statement and one commit (CreditsRepository.reserveMany), each answered as
   * `reserve` would answer it alone. The statement takes an account's reservations in order while their running
   * sum fits; one refused that would fit what is left afterwards (a smaller one behind a larger refused one) is
   * taken by a further statement, so a refusal always means the balance left does not cover it. A key repeated
   * in the request is held once and its repeats answered as replays; a key that another call reserved at the
   * same moment undoes the statement, and its reservations are then held one by one (`reserve`). The first
   * statement also closes the reservations used in full that came with them (`close`, as closeUsed).
   */
  async reserveMany(
    reqs: readonly ReserveRequest[],
    close: ReadonlyArray<{ accountId: AccountId; idempotencyKey: string }> = [],
  ): Promise<ReserveManyReply> {
    const firstOf = new Map<string, number>();
    const distinct: number[] = [];
    reqs.forEach((r, i) => {
      const key = `${r.accountId}\u0000${r.idempotencyKey}`;
      if (firstOf.has(key)) return;
      firstOf.set(key, i);
      distinct.push(i);
    });
    const outcomes: ReserveOutcomeReply[] = new Array(reqs.length);
    let open = distinct;
    let toClose = close;
    let closed = 0;
    try {
      while (open.length > 0) {
        const ids = open.map(() => randomUUID());
        const { outcomes: held, closed: closedNow } = await this.repo.reserveMany(
          open.map((i, n) => ({
            id: ids[n]!,
            accountId: reqs[i]!.accountId,
            idempotencyKey: reqs[i]!.idempotencyKey,
            amount: reqs[i]!.amount,
            holdSeconds: reqs[i]!.holdSeconds ?? null,
          })),
          toClose,
        );
        closed += closedNow;
        toClose = [];
        const again: number[] = [];
        held.forEach((outcome, n) => {
          const i = open[n]!;
          if (outcome.kind === 'short' && reqs[i]!.amount <= outcome.balance) again.push(i);
          else outcomes[i] = this.answer(reqs[i]!, ids[n]!, outcome);
        });
        open = again;
      }
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      for (const i of open) outcomes[i] = await this.reserveAlone(reqs[i]!);
      if (toClose.length > 0) closed += await this.repo.closeUsedReservations(toClose);
    }
    reqs.forEach((r, i) => {
      const first = firstOf.get(`${r.accountId}\u0000${r.idempotencyKey}`)!;
      if (first === i) return;
      const answered = outcomes[first]!;
      outcomes[i] = answered.ok ? { ok: true, reply: { ...answered.reply, replayed: true } } : answered;
    });
    return { outcomes, closed };
  }

  /** `reserve`, its failure as the error it would have been answered with. */
  private async reserveAlone(req: ReserveRequest): Promise<ReserveOutcomeReply> {
    try {
      return { ok: true, reply: await this.reserve(req) };
    } catch (err) {
      if (err instanceof DomainError) return { ok: false, error: err.toBody() };
      throw err;
    }
  }

  private reserveOne(reservationId: string, req: ReserveRequest): Promise<ReserveOutcome> {
    return this.repo.reserve({
      id: reservationId,
      accountId: req.accountId,
      idempotencyKey: req.idempotencyKey,
      amount: req.amount,
      holdSeconds: req.holdSeconds ?? null,
    });
  }

  /** What a reservation's outcome answers (and counts, when it took credits). */
  private answer(req: ReserveRequest, reservationId: string, outcome: ReserveOutcome): ReserveOutcomeReply {
    const refused = (error: ErrorBody): ReserveOutcomeReply => ({ ok: false, error });
    switch (outcome.kind) {
      case 'reserved':
        this.metrics.reserved(req.idempotencyKey, req.amount);
        return {
          ok: true,
          reply: { reservationId, amount: req.amount, balance: outcome.balance, replayed: false },
        };
      case 'replayed':
        return {
          ok: true,
          reply: {
            reservationId: outcome.id,
            amount: outcome.amount,
            balance: outcome.balance,
            replayed: true,
          },
        };
      case 'short':
        return refused({
          code: 'INSUFFICIENT_CREDITS',
          message: `This needs ${req.amount} credits and the account has ${outcome.balance}`,
          details: { required: req.amount, available: outcome.balance },
        });
      case 'no-account':
        return refused({ code: 'ACCOUNT_NOT_FOUND', message: 'Account not found' });
    }
  }

  /** Charges `used` of a reservation and refunds the rest, once. */
  async settle(req: SettleRequest): Promise<SettleReply> {
    const reply = await this.settleOnce(req);
    if (!reply.replayed) this.metrics.gaveBack(req.idempotencyKey, reply.refunded);
    return reply;
  }

  /**
   * Settles reservations used in full, in one statement: nothing is refunded, so the account rows are left
   * alone and no ledger row is written (the reservation's own ledger row already holds the charge).
   */
  async closeUsed(req: CloseUsedRequest): Promise<CloseUsedReply> {
    return { closed: await this.repo.closeUsedReservations(req.reservations) };
  }

  /** One statement ends the reservation; when it ended nothing, the reservation as it stands says why. */
  private async settleOnce(req: SettleRequest): Promise<SettleReply> {
    const ended = await this.repo.endReservation({ ...req, status: 'settled' });
    if (ended) {
      const { id, used, refunded, balance } = ended;
      return { reservationId: id, used, refunded, balance, replayed: false };
    }
    const reservation = await this.repo.findReservation(req.accountId, req.idempotencyKey);
    if (!reservation)
      throw new DomainError('NOT_FOUND', `No reservation "${req.idempotencyKey}" for this account`);
    if (reservation.status === 'reserved') {
      throw new DomainError(
        'INVALID_REQUEST',
        `used (${req.used}) exceeds the reservation (${reservation.amount})`,
      );
    }
    return {
      reservationId: reservation.id,
      used: reservation.used ?? 0,
      refunded: reservation.refunded ?? 0,
      balance: reservation.balance,
      replayed: true,
    };
  }

  /**
   * Refunds whole every reservation held past its expiry (its holder died before settling) and returns how
   * many it refunded. Safe with several replicas and against a late settle: only a reservation still held
   * and expired when its statement runs is refunded.
   */
  async sweepExpired(batch = 100): Promise<number> {
    let refunded = 0;
    for (;;) {
      const before = refunded;
      const due = await this.repo.expiredReservationsInternal(batch);
      for (const { account_id: accountId, idempotency_key: idempotencyKey } of due) {
        const ended = await this.repo.endReservation({
          accountId,
          idempotencyKey,
          used: 0,
          status: 'expired',
        });
        if (!ended) continue;
        refunded += 1;
        this.metrics.gaveBack(idempotencyKey, ended.refunded);
      }
      // A short page is the last; a page another replica refunded first would only come back again.
      if (due.length < batch || refunded === before) return refunded;
    }
  }

  async createAccount(req: AccountCreateRequest): Promise<AccountCreateReply> {
    // A new account: its id is made here.
    const accountId = randomUUID() as AccountId;
    const keyId = randomUUID();
    const key = generateApiKey();
    await this.repo.transaction(async (tx) => {
      await tx.insertAccount({ id: accountId, name: req.name, plan: req.plan ?? 'payg' });
      await tx.insertKey({
        id: keyId,
        accountId,
        name: 'default',
        prefix: key.prefix,
        hash: key.hash,
        style: req.style ?? 'current',
        mode: 'live',
        scope: 'full',
        expiresAt: null,
      });
      if (req.credits > 0) await tx.applyChange({ accountId, kind: 'grant', amount: req.credits });
    });
    return { accountId, apiKeyId: keyId, apiKey: key.key };
  }

  async addCredits(req: BalanceAddRequest): Promise<BalanceAddReply> {
    return this.repo.transaction(async (tx) => {
      if (!(await tx.lockAccount(req.accountId)))
        throw new DomainError('ACCOUNT_NOT_FOUND', 'Account not found');
      const after = await tx.applyChange({ accountId: req.accountId, kind: 'grant', amount: req.credits });
      return { accountId: after.id, creditsBalance: after.balance, creditsAdded: after.added };
    });
  }

  /**
   * Makes a key of the account, shown this once. Its mode is fixed here for good: nothing changes a key's mode
   * afterwards, so a sandbox key never becomes live.
   */
  async createKey(req: KeyCreateRequest): Promise<KeyCreateReply> {
    const keyId = randomUUID();
    const mode = req.mode ?? 'live';
    const key = generateApiKey(mode);
    const expiresAt = req.expiresAt === undefined ? null : new Date(req.expiresAt);
    if (expiresAt && !(expiresAt.getTime() > Date.now()))
      throw new DomainError('INVALID_REQUEST', 'expires_at must be a time in the future');
    const row = await this.repo.transaction(async (tx) => {
      if (!(await tx.lockAccount(req.accountId)))
        throw new DomainError('ACCOUNT_NOT_FOUND', 'Account not found');
      if ((await tx.countActiveKeys(req.accountId)) >= MAX_ACTIVE_KEYS_PER_ACCOUNT)
        throw new DomainError(
          'INVALID_REQUEST',
          `An account holds at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys: revoke one first`,
          { max: MAX_ACTIVE_KEYS_PER_ACCOUNT },
        );
      return tx.insertKey({
        id: keyId,
        accountId: req.accountId,
        name: req.name ?? 'key',
        prefix: key.prefix,
        hash: key.hash,
        style: req.style ?? 'current',
        mode,
        scope: req.scope ?? 'full',
        expiresAt,
      });
    });
    return {
      accountId: row.account_id,
      apiKeyId: row.id,
      apiKeyName: row.name,
      apiKey: key.key,
      style: row.style,
      mode: row.mode,
      scope: row.scope,
      prefix: row.prefix,
      createdAt: row.created_at.toISOString(),
      expiresAt: row.expires_at ? row.expires_at.toISOString() : null,
    };
  }

  async setStyle(keyRef: string, style: ResponseStyle): Promise<KeySummary> {
    const key = await this.operatorKey(keyRef);
    const updated = await this.repo.setKeyStyleForOperator(key.id, style);
    if (!updated) throw new DomainError('API_KEY_NOT_FOUND', 'API key not found');
    // Gateways cache the key's default style with its resolution: drop it everywhere.
    await this.keyChanged({ apiKeyId: key.id, keyHash: '' });
    return summary(updated);
  }

  async revokeKey(keyRef: string): Promise<KeySummary> {
    const key = await this.operatorKey(keyRef);
    const revoked = await this.repo.revokeKeyForOperator(key.id);
    if (!revoked) throw new DomainError('API_KEY_NOT_FOUND', 'API key not found');
    await this.keyChanged({ apiKeyId: revoked.id, keyHash: revoked.key_hash });
    return summary(revoked);
  }

  async listKeys(accountId: AccountId, mode?: KeyMode): Promise<KeyListReply> {
    if (!(await this.repo.findAccount(accountId)))
      throw new DomainError('ACCOUNT_NOT_FOUND', 'Account not found');
    return { keys: (await this.repo.listKeys(accountId, mode ?? null)).map(summary) };
  }

  /**
   * A customer revokes a key of their account with another of its keys; once revoked, it is refused on every
   * gateway before this replies (as for an operator's revocation). Revoking a revoked key changes nothing.
   */
  async revokeAccountKey(req: AccountKeyRevokeRequest): Promise<KeySummary> {
    if (req.apiKeyId === req.callerApiKeyId)
      throw new DomainError(
        'CANNOT_REVOKE_CURRENT_KEY',
        'A key cannot revoke itself: revoke it with another key of the account',
      );
    const revoked = await this.repo.revokeKey(req.accountId, req.apiKeyId, req.mode ?? null);
    if (!revoked) throw new DomainError('API_KEY_NOT_FOUND', 'API key not found');
    await this.keyChanged({ apiKeyId: revoked.id, keyHash: revoked.key_hash });
    return summary(revoked);
  }

  /**
   * Tells every gateway to drop what it cached of a key, and returns once the server has handed that broadcast to
   * every gateway's connection: the operator's reply leaves after it.
   */
  private async keyChanged(change: KeyChangedBroadcast): Promise<void> {
    this.bus.publish(Broadcasts.keyChanged, change);
    await this.bus.flush();
  }

  /** Operators may name a key by its id or by the key itself. */
  private async operatorKey(keyRef: string): Promise<KeyRow> {
    const isId = isUuid(keyRef);
    const key = await this.repo.findKeyForOperator(isId ? keyRef : null, isId ? null : hashApiKey(keyRef));
    if (!key) throw new DomainError('API_KEY_NOT_FOUND', 'API key not found');
    return key;
  }
}

function summary(row: KeyRow): KeySummary {
  return {
    apiKeyId: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    style: row.style,
    mode: row.mode,
    scope: row.scope,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at ? row.expires_at.toISOString() : null,
    revokedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}
