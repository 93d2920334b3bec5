import { Injectable } from '@nestjs/common';
import type { AccountId } from '@emailverify/contracts';
import { Sql } from '@emailverify/persistence';
import { type BreakerRow, endPendingDeliveries } from '../delivery/deliveries.repository';

export interface WebhookRow extends BreakerRow {
  id: string;
  account_id: AccountId;
  url: string;
  events: string[];
  secret_sealed: Buffer;
  /** The id of the encryption key that sealed both secrets. */
  secret_key_id: string;
  previous_secret_sealed: Buffer | null;
  /** Until when the rotated-out secret still signs (it is kept after that until the next rotation). */
  previous_secret_until: Date | null;
  secret_rotated_at: Date | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  last_delivery_status: 'success' | 'failed' | null;
  last_delivery_at: Date | null;
  last_error: string | null;
}

const COLUMNS = `id, account_id, url, events, secret_sealed, secret_key_id, previous_secret_sealed,
                 previous_secret_until, secret_rotated_at, is_active, created_at, updated_at,
                 last_delivery_status, last_delivery_at, last_error,
                 consecutive_failures, breaker_opened_at, breaker_pause_ms, breaker_retry_at`;

/** A webhook's sealed secrets, as the re-encryption reads and rewrites them. */
export interface SealedSecrets {
  id: string;
  secret_key_id: string;
  secret_sealed: Buffer;
  previous_secret_sealed: Buffer | null;
}

/** Every query on webhooks takes the account: another account's webhook is never found. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Stores a webhook unless the account already has `limit`; the count and the insert run under a per-account
   * lock, so concurrent creates cannot pass the limit together. Returns undefined when the limit is reached.
   */
  async create(
    accountId: AccountId,
    webhook: { id: string; url: string; events: string[]; secretSealed: Buffer; secretKeyId: string },
    limit: number,
  ): Promise<WebhookRow | undefined> {
    return this.sql.transaction(async (tx) => {
      await tx.rows(`SELECT pg_advisory_xact_lock(hashtext('webhooks:' || $1))`, [accountId]);
      const held = await tx.one<{ count: number }>(
        `SELECT count(*)::int AS count FROM webhooks.webhooks WHERE account_id = $1`,
        [accountId],
      );
      if (held!.count >= limit) return undefined;
      return tx.one<WebhookRow>(
        `INSERT INTO webhooks.webhooks (id, account_id, url, events, secret_sealed, secret_key_id)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [webhook.id, accountId, webhook.url, webhook.events, webhook.secretSealed, webhook.secretKeyId],
      );
    });
  }

  list(accountId: AccountId): Promise<WebhookRow[]> {
    return this.sql.rows<WebhookRow>(
      `SELECT ${COLUMNS} FROM webhooks.webhooks WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    );
  }

  find(accountId: AccountId, webhookId: string): Promise<WebhookRow | undefined> {
    return this.sql.one<WebhookRow>(
      `SELECT ${COLUMNS} FROM webhooks.webhooks WHERE account_id = $1 AND id = $2`,
      [accountId, webhookId],
    );
  }

  /**
   * Changes url, events and activity. Deactivating ends the webhook's pending deliveries (inactive webhooks
   * receive nothing); reactivating starts the auto-disable count afresh. A new url or a reactivation closes
   * the circuit breaker: the receiver is given a fresh start.
   */
  async update(
    accountId: AccountId,
    webhookId: string,
    change: { url?: string; events?: string[]; isActive?: boolean },
  ): Promise<WebhookRow | undefined> {
    return this.sql.transaction(async (tx) => {
      const row = await tx.one<WebhookRow>(
        `UPDATE webhooks.webhooks
              SET url = COALESCE($3, url),
                  events = COALESCE($4::text[], events),
                  failing_since = CASE WHEN $5::boolean AND NOT is_active THEN NULL ELSE failing_since END,
                  is_active = COALESCE($5, is_active),
                  consecutive_failures = CASE WHEN $6::boolean THEN 0 ELSE consecutive_failures END,
                  breaker_opened_at = CASE WHEN $6 THEN NULL ELSE breaker_opened_at END,
                  breaker_pause_ms = CASE WHEN $6 THEN NULL ELSE breaker_pause_ms END,
                  breaker_retry_at = CASE WHEN $6 THEN NULL ELSE breaker_retry_at END,
                  updated_at = now()
            WHERE account_id = $1 AND id = $2
            RETURNING ${COLUMNS}`,
        [
          accountId,
          webhookId,
          change.url ?? null,
          change.events ?? null,
          change.isActive ?? null,
          change.url !== undefined || change.isActive === true,
        ],
      );
      if (row && change.isActive === false) await endPendingDeliveries(tx, webhookId);
      return row;
    });
  }

  /**
   * Replaces the webhook's secret: `reseal` is given the row, locked, and returns the new secret and the one it
   * replaces, both sealed with the current key; the replaced one signs too for `overlapHours`.
   */
  async rotateSecret(
    accountId: AccountId,
    webhookId: string,
    overlapHours: number,
    reseal: (row: WebhookRow) => { keyId: string; secretSealed: Buffer; previousSealed: Buffer },
  ): Promise<WebhookRow | undefined> {
    return this.sql.transaction(async (tx) => {
      const row = await tx.one<WebhookRow>(
        `SELECT ${COLUMNS} FROM webhooks.webhooks WHERE account_id = $1 AND id = $2 FOR UPDATE`,
        [accountId, webhookId],
      );
      if (!row) return undefined;
      const sealed = reseal(row);
      return tx.one<WebhookRow>(
        `UPDATE webhooks.webhooks
            SET secret_sealed = $3, secret_key_id = $4, previous_secret_sealed = $5,
                previous_secret_until = now() + make_interval(secs => $6),
                secret_rotated_at = now(), updated_at = now()
          WHERE account_id = $1 AND id = $2
          RETURNING ${COLUMNS}`,
        [accountId, webhookId, sealed.secretSealed, sealed.keyId, sealed.previousSealed, overlapHours * 3600],
      );
    });
  }

  /**
   * Re-encrypts up to `limit` webhooks sealed by one of `oldKeyIds` (rows another process holds are left for
   * later): `reseal` returns their secrets sealed with the current key. Returns how many were rewritten.
   */
  async resealBatch(
    oldKeyIds: string[],
    limit: number,
    reseal: (row: SealedSecrets) => Omit<SealedSecrets, 'id'>,
  ): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const rows = await tx.rows<SealedSecrets>(
        `SELECT id, secret_key_id, secret_sealed, previous_secret_sealed FROM webhooks.webhooks
          WHERE secret_key_id = ANY($1::text[]) LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [oldKeyIds, limit],
      );
      for (const row of rows) {
        const next = reseal(row);
        await tx.rows(
          `UPDATE webhooks.webhooks
              SET secret_sealed = $2, secret_key_id = $3, previous_secret_sealed = $4
            WHERE id = $1`,
          [row.id, next.secret_sealed, next.secret_key_id, next.previous_secret_sealed],
        );
      }
      return rows.length;
    });
  }

  /** Key ids that seal some webhook's secrets, with how many each seals. */
  keyIdsInUse(): Promise<Array<{ secret_key_id: string; count: number }>> {
    return this.sql.rows(
      `SELECT secret_key_id, count(*)::int AS count FROM webhooks.webhooks GROUP BY secret_key_id`,
    );
  }

  /** Removes the webhook with its deliveries and their attempts. */
  async delete(accountId: AccountId, webhookId: string): Promise<boolean> {
    const deleted = await this.sql.affected(
      `DELETE FROM webhooks.webhooks WHERE account_id = $1 AND id = $2`,
      [accountId, webhookId],
    );
    return deleted > 0;
  }
}
