import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  type AccountId,
  type Delivery,
  type DeliveryListReply,
  type DeliveryListRequest,
  DomainError,
  isUuid,
  MAX_WEBHOOKS_PER_ACCOUNT,
  type RedeliverRequest,
  type Webhook,
  type WebhookCreateReply,
  type WebhookCreateRequest,
  type WebhookDeleteReply,
  type WebhookEvent,
  type WebhookListReply,
  type WebhookRef,
  type WebhookRotateReply,
  type WebhookBreaker,
  type WebhookUpdateRequest,
} from '@emailverify/contracts';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from '../config';
import { breakerView } from '../delivery/breaker';
import {
  type BreakerRow,
  breakerState,
  DeliveriesRepository,
  type DeliveryRow,
} from '../delivery/deliveries.repository';
import { Dispatcher } from '../delivery/dispatcher';
import { newSigningSecret, SecretBox } from './secret-box';
import { validateEvents, validateTargetUrl } from './target-url';
import { type WebhookRow, WebhooksRepository } from './webhooks.repository';

/** A timestamptz as PostgreSQL prints it, e.g. `2026-11-23 16:40:00.123456+00`. */
const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

/** Webhook CRUD, the delivery log and redelivery, for one account at a time. */
@Injectable()
export class WebhooksService {
  private readonly options: { allowPrivateNetworks: boolean; overlapHours: number; onRedeliver: () => void };

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly box: SecretBox,
    @Inject(WEBHOOKS_CONFIG)
    config: Pick<WebhooksConfig, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'> &
      Partial<Pick<WebhooksConfig, 'WEBHOOK_SECRET_OVERLAP_HOURS'>>,
    @Inject(Dispatcher) redeliveries: Pick<Dispatcher, 'kick'>,
  ) {
    // A redelivery is due at once: the dispatcher looks for due attempts now rather than at its next poll.
    this.options = {
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      overlapHours: config.WEBHOOK_SECRET_OVERLAP_HOURS ?? 24,
      onRedeliver: () => redeliveries.kick(),
    };
  }

  async create(request: WebhookCreateRequest): Promise<WebhookCreateReply> {
    const url = validateTargetUrl(request.url, this.options.allowPrivateNetworks);
    const events = validateEvents(request.events);
    const id = randomUUID();
    const secret = newSigningSecret();
    const row = await this.webhooks.create(
      request.accountId,
      { id, url, events, secretSealed: this.box.seal(secret, id), secretKeyId: this.box.keyId },
      MAX_WEBHOOKS_PER_ACCOUNT,
    );
    if (!row)
      throw new DomainError(
        'INVALID_REQUEST',
        `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one before adding another`,
        { limit: MAX_WEBHOOKS_PER_ACCOUNT },
      );
    return { webhook: toWebhook(row), secret };
  }

  async list(accountId: AccountId): Promise<WebhookListReply> {
    const rows = await this.webhooks.list(accountId);
    return { webhooks: rows.map(toWebhook), total: rows.length };
  }

  async update(request: WebhookUpdateRequest): Promise<Webhook> {
    const { accountId, webhookId } = request;
    if (request.url === undefined && request.events === undefined && request.isActive === undefined)
      throw new DomainError('INVALID_REQUEST', 'body: give at least one of url, events, is_active', {
        field: 'body',
      });
    const change = {
      ...(request.url !== undefined
        ? { url: validateTargetUrl(request.url, this.options.allowPrivateNetworks) }
        : {}),
      ...(request.events !== undefined ? { events: validateEvents(request.events) } : {}),
      ...(request.isActive !== undefined ? { isActive: request.isActive } : {}),
    };
    const row = isUuid(webhookId) ? await this.webhooks.update(accountId, webhookId, change) : undefined;
    if (!row) throw notFound(webhookId);
    return toWebhook(row);
  }

  async delete({ accountId, webhookId }: WebhookRef): Promise<WebhookDeleteReply> {
    if (!isUuid(webhookId) || !(await this.webhooks.delete(accountId, webhookId))) throw notFound(webhookId);
    return { webhookId };
  }

  /**
   * Gives the webhook a new secret, returned this once. The one it replaces still signs beside it for
   * WEBHOOK_SECRET_OVERLAP_HOURS; a secret rotated out earlier stops signing now.
   */
  async rotateSecret({ accountId, webhookId }: WebhookRef): Promise<WebhookRotateReply> {
    const secret = newSigningSecret();
    const row = isUuid(webhookId)
      ? await this.webhooks.rotateSecret(accountId, webhookId, this.options.overlapHours, (current) => ({
          keyId: this.box.keyId,
          secretSealed: this.box.seal(secret, current.id),
          previousSealed: this.box.seal(
            this.box.open(current.secret_sealed, current.id, current.secret_key_id),
            current.id,
          ),
        }))
      : undefined;
    if (!row) throw notFound(webhookId);
    return { webhook: toWebhook(row), secret };
  }

  /** A page of the delivery log, with the webhook's breaker (while open, its pending deliveries wait for it). */
  async listDeliveries(request: DeliveryListRequest): Promise<DeliveryListReply> {
    const webhook = await this.existing(request);
    const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
    const rows = await this.deliveries.list(request.accountId, request.webhookId, request.limit + 1, after);
    const page = rows.slice(0, request.limit);
    const last = page[page.length - 1];
    return {
      deliveries: page.map((row) => toDelivery(row, webhook.breaker_retry_at)),
      nextCursor: rows.length > request.limit && last ? encodeCursor(last) : null,
      breaker: toBreaker(webhook),
    };
  }

  async redeliver(request: RedeliverRequest): Promise<Delivery> {
    const webhook = await this.existing(request);
    const { accountId, webhookId, deliveryId } = request;
    if (!isUuid(deliveryId) || !(await this.deliveries.find(accountId, webhookId, deliveryId)))
      throw new DomainError('NOT_FOUND', `Delivery ${deliveryId.slice(0, 100)} not found`);
    if (!webhook.is_active)
      throw new DomainError(
        'INVALID_REQUEST',
        'webhook: the webhook is inactive; activate it (PATCH is_active=true) before redelivering',
        { field: 'is_active' },
      );
    await this.deliveries.redeliver(accountId, webhookId, deliveryId);
    this.options.onRedeliver();
    const row = await this.deliveries.find(accountId, webhookId, deliveryId);
    if (!row) throw new DomainError('NOT_FOUND', `Delivery ${deliveryId} not found`);
    return toDelivery(row, webhook.breaker_retry_at);
  }

  private async existing({ accountId, webhookId }: WebhookRef): Promise<WebhookRow> {
    const row = isUuid(webhookId) ? await this.webhooks.find(accountId, webhookId) : undefined;
    if (!row) throw notFound(webhookId);
    return row;
  }
}

function notFound(webhookId: string): DomainError {
  return new DomainError('WEBHOOK_NOT_FOUND', `Webhook ${webhookId.slice(0, 100)} not found`);
}

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    events: row.events as WebhookEvent[],
    isActive: row.is_active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    lastDeliveryStatus: row.last_delivery_status,
    lastDeliveryAt: row.last_delivery_at?.toISOString() ?? null,
    lastError: row.last_error,
    secretRotatedAt: row.secret_rotated_at?.toISOString() ?? null,
    previousSecretExpiresAt:
      row.previous_secret_until && row.previous_secret_until.getTime() > Date.now()
        ? row.previous_secret_until.toISOString()
        : null,
    breaker: toBreaker(row),
  };
}

function toBreaker(row: BreakerRow): WebhookBreaker {
  const state = breakerState(row);
  return {
    state: breakerView(state, Date.now()),
    retryAt: state.retryAt?.toISOString() ?? null,
    consecutiveFailures: state.consecutiveFailures,
  };
}

/**
 * A delivery of the log. A pending one whose webhook's breaker is open waits for the breaker's probe at the
 * earliest, and says so in its next attempt's time.
 */
function toDelivery(row: DeliveryRow, breakerRetryAt: Date | null): Delivery {
  const next =
    row.status === 'pending' && row.next_attempt_at && breakerRetryAt && breakerRetryAt > row.next_attempt_at
      ? breakerRetryAt
      : row.next_attempt_at;
  return {
    id: row.id,
    event: row.event as WebhookEvent,
    jobId: row.job_id,
    status: row.status,
    attempts: row.attempts.map((a) => ({
      at: new Date(a.at).toISOString(),
      httpStatus: a.http_status,
      durationMs: a.duration_ms,
      error: a.error,
      responseBody: a.response_body,
    })),
    nextAttemptAt: next?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

function encodeCursor(row: DeliveryRow): string {
  return Buffer.from(JSON.stringify([row.created_key, row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdKey: string; id: string } {
  try {
    const [createdKey, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof createdKey === 'string' &&
      typeof id === 'string' &&
      isUuid(id) &&
      PG_TIMESTAMP.test(createdKey)
    )
      return { createdKey, id };
  } catch {
    // fall through
  }
  throw new DomainError('INVALID_REQUEST', 'cursor: not a cursor this service gave out', { field: 'cursor' });
}
