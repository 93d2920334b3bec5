import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_DATA_SOURCE } from '@emailverify/service-kit';
import type { AccountId } from '@emailverify/contracts';
import { type DataSource, returnedRows } from '@emailverify/persistence';

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
  constructor(@Inject(SERVICE_DATA_SOURCE) private readonly db: DataSource) {}

  /**
   * Stores a webhook unless the account already has `limit`; the count and the insert run under a per-account
   * lock, so concurrent creates cannot pass the limit together. Returns undefined when the limit is reached.
   */
  async create(
    accountId: AccountId,
    webhook: { id: string; url: string; events: string[]; secretSealed: Buffer },
    limit: number,
  ): Promise<WebhookRow | undefined> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('webhooks:' || $1))`, [accountId]);
      const [{ count }] = (await m.query(
        `SELECT count(*)::int AS count FROM webhooks.webhooks WHERE account_id = $1`,
        [accountId],
      )) as [{ count: number }];
      if (count >= limit) return undefined;
      const rows = (await m.query(
        `INSERT INTO webhooks.webhooks (id, account_id, url, events, secret_sealed)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [webhook.id, accountId, webhook.url, webhook.events, webhook.secretSealed],
      )) as WebhookRow[];
      return rows[0];
    });
  }

  async list(accountId: AccountId): Promise<WebhookRow[]> {
    return (await this.db.query(
      `SELECT ${COLUMNS} FROM webhooks.webhooks WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    )) as WebhookRow[];
  }

  async find(accountId: AccountId, webhookId: string): Promise<WebhookRow | undefined> {
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM webhooks.webhooks WHERE account_id = $1 AND id = $2`,
      [accountId, webhookId],
    )) as WebhookRow[];
    return rows[0];
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
    return this.db.transaction(async (m) => {
      const rows = returnedRows<WebhookRow>(
        await m.query(
          `UPDATE webhooks.webhooks
              SET url = COALESCE($3, url),
                  events = COALESCE($4::text[], events),
                  failing_since = CASE WHEN $5::boolean AND NOT is_active THEN NULL ELSE failing_since END,
                  is_active = COALESCE($5, is_active),
                  updated_at = now()
            WHERE account_id = $1 AND id = $2
            RETURNING ${COLUMNS}`,
          [accountId, webhookId, change.url ?? null, change.events ?? null, change.isActive ?? null],
        ),
      );
      const row = rows[0];
      if (row && change.isActive === false) {
        await m.query(
          `UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL
            WHERE webhook_id = $1 AND status = 'pending'
              AND (claimed_until IS NULL OR claimed_until < now())`,
          [webhookId],
        );
      }
      return row;
    });
  }

  /** Removes the webhook with its deliveries and their attempts. */
  async delete(accountId: AccountId, webhookId: string): Promise<boolean> {
    const rows = returnedRows<{ id: string }>(
      await this.db.query(`DELETE FROM webhooks.webhooks WHERE account_id = $1 AND id = $2 RETURNING id`, [
        accountId,
        webhookId,
      ]),
    );
    return rows.length > 0;
  }
}
