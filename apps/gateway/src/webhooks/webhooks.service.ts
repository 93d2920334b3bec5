import { Injectable } from '@nestjs/common';
import {
  DELIVERY_PAGE,
  type Delivery,
  type DeliveryListReply,
  DomainError,
  isUuid,
  type RpcReply,
  type RpcRequest,
  type RpcSubject,
  Subjects,
  type Webhook,
  type WebhookCreateReply,
  type WebhookDeleteReply,
  type WebhookListReply,
} from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import type { AuthContext } from '../common/http/request-context';
import type { CreateWebhookDto, DeliveryListQueryDto, UpdateWebhookDto } from './dto/webhooks.dto';

/**
 * Webhooks at the edge: the DTOs have checked the shape; the webhooks service decides everything else (https,
 * private addresses, known events, at least one field to change, the per-account limit, which ids exist) and
 * answers over NATS. An id that is not a UUID is answered here as not found (404), like an unknown one: it
 * would only make the hop to be refused, and one longer than the service accepts on receipt must not come back
 * as a 400.
 */
@Injectable()
export class WebhooksService {
  constructor(private readonly bus: MessageBus) {}

  create(auth: AuthContext, dto: CreateWebhookDto): Promise<WebhookCreateReply> {
    return this.ask(
      Subjects.webhooksCreate,
      { accountId: auth.accountId, url: dto.url, events: dto.events },
      auth.requestId,
    );
  }

  list(auth: AuthContext): Promise<WebhookListReply> {
    return this.ask(Subjects.webhooksList, { accountId: auth.accountId }, auth.requestId);
  }

  update(auth: AuthContext, webhookId: string, dto: UpdateWebhookDto): Promise<Webhook> {
    assertWebhookId(webhookId);
    return this.ask(
      Subjects.webhooksUpdate,
      {
        accountId: auth.accountId,
        webhookId,
        ...(dto.url !== undefined ? { url: dto.url } : {}),
        ...(dto.events !== undefined ? { events: dto.events } : {}),
        ...(dto.is_active !== undefined ? { isActive: dto.is_active } : {}),
      },
      auth.requestId,
    );
  }

  remove(auth: AuthContext, webhookId: string): Promise<WebhookDeleteReply> {
    assertWebhookId(webhookId);
    return this.ask(Subjects.webhooksDelete, { accountId: auth.accountId, webhookId }, auth.requestId);
  }

  deliveries(auth: AuthContext, webhookId: string, query: DeliveryListQueryDto): Promise<DeliveryListReply> {
    assertWebhookId(webhookId);
    return this.ask(
      Subjects.webhooksDeliveryList,
      {
        accountId: auth.accountId,
        webhookId,
        limit: query.limit ?? DELIVERY_PAGE.default,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
      auth.requestId,
    );
  }

  redeliver(auth: AuthContext, webhookId: string, deliveryId: string): Promise<Delivery> {
    assertWebhookId(webhookId);
    if (!isUuid(deliveryId))
      throw new DomainError('NOT_FOUND', `Delivery ${deliveryId.slice(0, 100)} not found`);
    return this.ask(
      Subjects.webhooksRedeliver,
      { accountId: auth.accountId, webhookId, deliveryId },
      auth.requestId,
    );
  }

  private async ask<S extends RpcSubject>(
    subject: S,
    payload: RpcRequest<S>,
    requestId: string,
  ): Promise<RpcReply<S>> {
    try {
      return await this.bus.request(subject, payload, { requestId });
    } catch (err) {
      throw namingField(err);
    }
  }
}

function assertWebhookId(webhookId: string): void {
  if (!isUuid(webhookId))
    throw new DomainError('WEBHOOK_NOT_FOUND', `Webhook ${webhookId.slice(0, 100)} not found`);
}

/**
 * A refusal that names its field in `details.field` names it in the message too, so the current style (which
 * shows only the message) tells the caller which field to fix as the legacy style's `details` does.
 */
function namingField(err: unknown): unknown {
  if (!(err instanceof DomainError) || err.code !== 'INVALID_REQUEST') return err;
  const field = err.details?.field;
  if (typeof field !== 'string' || field === '' || err.message.includes(field)) return err;
  return new DomainError(err.code, `${field}: ${err.message}`, err.details);
}
