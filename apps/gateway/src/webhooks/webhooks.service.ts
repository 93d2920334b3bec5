import { Injectable } from '@nestjs/common';
import {
  DELIVERY_PAGE,
  type Delivery,
  type DeliveryListReply,
  DomainError,
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
 * private addresses, known events, the per-account limit, which ids exist) and answers over NATS. Ids travel
 * as given: one that is not a webhook of the account, malformed or not, comes back as WEBHOOK_NOT_FOUND.
 */
@Injectable()
export class WebhooksService {
  constructor(private readonly bus: MessageBus) {}

  create(auth: AuthContext, dto: CreateWebhookDto, requestId: string): Promise<WebhookCreateReply> {
    return this.ask(
      Subjects.webhooksCreate,
      { accountId: auth.accountId, url: dto.url, events: dto.events },
      requestId,
    );
  }

  list(auth: AuthContext, requestId: string): Promise<WebhookListReply> {
    return this.ask(Subjects.webhooksList, { accountId: auth.accountId }, requestId);
  }

  update(auth: AuthContext, webhookId: string, dto: UpdateWebhookDto, requestId: string): Promise<Webhook> {
    if (dto.url === undefined && dto.events === undefined && dto.is_active === undefined) {
      throw new DomainError('INVALID_REQUEST', 'body: send at least one of url, events, is_active', {
        field: 'body',
      });
    }
    return this.ask(
      Subjects.webhooksUpdate,
      {
        accountId: auth.accountId,
        webhookId,
        ...(dto.url !== undefined ? { url: dto.url } : {}),
        ...(dto.events !== undefined ? { events: dto.events } : {}),
        ...(dto.is_active !== undefined ? { isActive: dto.is_active } : {}),
      },
      requestId,
    );
  }

  remove(auth: AuthContext, webhookId: string, requestId: string): Promise<WebhookDeleteReply> {
    return this.ask(Subjects.webhooksDelete, { accountId: auth.accountId, webhookId }, requestId);
  }

  deliveries(
    auth: AuthContext,
    webhookId: string,
    query: DeliveryListQueryDto,
    requestId: string,
  ): Promise<DeliveryListReply> {
    return this.ask(
      Subjects.webhooksDeliveryList,
      {
        accountId: auth.accountId,
        webhookId,
        limit: query.limit ?? DELIVERY_PAGE.default,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
      requestId,
    );
  }

  redeliver(auth: AuthContext, webhookId: string, deliveryId: string, requestId: string): Promise<Delivery> {
    return this.ask(
      Subjects.webhooksRedeliver,
      { accountId: auth.accountId, webhookId, deliveryId },
      requestId,
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
