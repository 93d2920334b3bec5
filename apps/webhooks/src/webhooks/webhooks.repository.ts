import { Injectable } from '@nestjs/common';
import type { AccountId } from '@emailverify/contracts';
import { Sql } from '@emailverify/persistence';
import { endPendingDeliveries } from '../delivery/deliveries.repository';

export interface WebhookRow {
  id: string;
  account_id: AccountId;
  url: string;
  events: string[];
  secret_sealed: Buffer;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  last_delivery_status: 'success' | 'failed' | null;
  last_delivery_at: Date | null;
  last_error: string | null;
}

const COLUMNS = `id, account_id, url, events, secret_sealed, is_active, created_at, updated_at,
                 last_delivery_status, last_delivery_at, last_error`;

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
    webhook: { id: string; url: string; events: string[]; secretSealed: Buffer },
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
        `INSERT INTO webhooks.webhooks (id, account_id, url, events, secret_sealed)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [webhook.id, accountId, webhook.url, webhook.events, webhook.secretSealed],
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
   * receive nothing); reactivating starts the auto-disable count afresh.
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
                  updated_at = now()
            WHERE account_id = $1 AND id = $2
            RETURNING ${COLUMNS}`,
        [accountId, webhookId, change.url ?? null, change.events ?? null, change.isActive ?? null],
      );
      if (row && change.isActive === false) await endPendingDeliveries(tx, webhookId);
      return row;
    });
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
