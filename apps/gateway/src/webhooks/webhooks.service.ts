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
  type WebhookRotateReply,
} from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { askForAccount } from '../common/account-request';
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
    return this.ask(auth, Subjects.webhooksCreate, { url: dto.url, events: dto.events });
  }

  list(auth: AuthContext): Promise<WebhookListReply> {
    return this.ask(auth, Subjects.webhooksList, {});
  }

  update(auth: AuthContext, webhookId: string, dto: UpdateWebhookDto): Promise<Webhook> {
    return this.ask(auth, Subjects.webhooksUpdate, {
      webhookId: knownShape(webhookId),
      ...(dto.url !== undefined ? { url: dto.url } : {}),
      ...(dto.events !== undefined ? { events: dto.events } : {}),
      ...(dto.is_active !== undefined ? { isActive: dto.is_active } : {}),
    });
  }

  rotateSecret(auth: AuthContext, webhookId: string): Promise<WebhookRotateReply> {
    return this.ask(auth, Subjects.webhooksRotateSecret, { webhookId: knownShape(webhookId) });
  }

  remove(auth: AuthContext, webhookId: string): Promise<WebhookDeleteReply> {
    return this.ask(auth, Subjects.webhooksDelete, { webhookId: knownShape(webhookId) });
  }

  deliveries(auth: AuthContext, webhookId: string, query: DeliveryListQueryDto): Promise<DeliveryListReply> {
    return this.ask(auth, Subjects.webhooksDeliveryList, {
      webhookId: knownShape(webhookId),
      limit: query.limit ?? DELIVERY_PAGE.default,
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });
  }

  redeliver(auth: AuthContext, webhookId: string, deliveryId: string): Promise<Delivery> {
    knownShape(webhookId);
    if (!isUuid(deliveryId))
      throw new DomainError('NOT_FOUND', `Delivery ${deliveryId.slice(0, 100)} not found`);
    return this.ask(auth, Subjects.webhooksRedeliver, { webhookId, deliveryId });
  }

  /** A request of the authenticated account, whose refusals name their field in the message too. */
  private async ask<S extends RpcSubject>(
    auth: AuthContext,
    subject: S,
    payload: Omit<RpcRequest<S>, 'accountId'>,
  ): Promise<RpcReply<S>> {
    try {
      return await askForAccount(this.bus, auth, subject, payload);
    } catch (err) {
      throw namingField(err);
    }
  }
}

/** The webhook id, when it can name a webhook at all (a UUID); any other is not found. */
function knownShape(webhookId: string): string {
  if (!isUuid(webhookId))
    throw new DomainError('WEBHOOK_NOT_FOUND', `Webhook ${webhookId.slice(0, 100)} not found`);
  return webhookId;
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
