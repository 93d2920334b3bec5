import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import type {
  Delivery,
  DeliveryListReply,
  Webhook,
  WebhookCreateReply,
  WebhookDeleteReply,
  WebhookListReply,
} from '@emailverify/contracts';
import { present, type Presented } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
import { ApiRoute } from '../openapi/api-route';
import { CreateWebhookDto, DeliveryListQueryDto, UpdateWebhookDto } from './dto/webhooks.dto';
import {
  createdDocs,
  deletedDocs,
  deliveryDocs,
  deliveryListDocs,
  listDocs,
  webhookDocs,
} from './webhooks.openapi';
import {
  DeliveryListPresenter,
  DeliveryPresenter,
  WebhookCreatedPresenter,
  WebhookDeletedPresenter,
  WebhookListPresenter,
  WebhookPresenter,
} from './webhooks.presenter';
import { WebhooksService } from './webhooks.service';

const WebhookIdParam = ApiParam({
  name: 'webhookId',
  description:
    'A webhook of the authenticated account; any other id (malformed included) is 404 WEBHOOK_NOT_FOUND',
});

/** Webhook CRUD and the delivery log; every route is in the "other" rate class (the default). */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(200)
  @ApiRoute({
    summary: 'Create a webhook (at most 25 per account)',
    description:
      'The URL must be HTTPS, without user name or password, and not a private IP address. The reply is the only one that carries the signing `secret`.',
    ok: createdDocs,
    errors: ['PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
  })
  async create(
    @Auth() auth: AuthContext,
    @Body() dto: CreateWebhookDto,
  ): Promise<Presented<WebhookCreateReply>> {
    return present(WebhookCreatedPresenter, await this.webhooks.create(auth, dto));
  }

  @Get()
  @ApiRoute({
    summary: "The account's webhooks (without secrets)",
    ok: listDocs,
    errors: ['SERVICE_UNAVAILABLE'],
  })
  async list(@Auth() auth: AuthContext): Promise<Presented<WebhookListReply>> {
    return present(WebhookListPresenter, await this.webhooks.list(auth));
  }

  @Patch(':webhookId')
  @WebhookIdParam
  @ApiRoute({
    summary: 'Change the url, events or is_active of a webhook (extension)',
    description:
      'Send at least one of the three fields. Setting is_active to true re-activates a webhook that was deactivated.',
    ok: webhookDocs,
    errors: ['WEBHOOK_NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
  })
  async update(
    @Auth() auth: AuthContext,
    @Param('webhookId') webhookId: string,
    @Body() dto: UpdateWebhookDto,
  ): Promise<Presented<Webhook>> {
    return present(WebhookPresenter, await this.webhooks.update(auth, webhookId, dto));
  }

  @Delete(':webhookId')
  @WebhookIdParam
  @ApiRoute({
    summary: 'Delete a webhook; no further deliveries are made to it',
    ok: deletedDocs,
    errors: ['WEBHOOK_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  })
  async remove(
    @Auth() auth: AuthContext,
    @Param('webhookId') webhookId: string,
  ): Promise<Presented<WebhookDeleteReply>> {
    return present(WebhookDeletedPresenter, await this.webhooks.remove(auth, webhookId));
  }

  @Get(':webhookId/deliveries')
  @WebhookIdParam
  @ApiRoute({
    summary: 'Delivery log of a webhook, newest first (extension)',
    description:
      'Each delivery lists its attempts with HTTP status and duration. Pages are `limit` long (1-100, default 20); pass `next_cursor` as `cursor` for the next one. Deliveries are kept 30 days.',
    ok: deliveryListDocs,
    errors: ['WEBHOOK_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  })
  async deliveries(
    @Auth() auth: AuthContext,
    @Param('webhookId') webhookId: string,
    @Query() query: DeliveryListQueryDto,
  ): Promise<Presented<DeliveryListReply>> {
    return present(DeliveryListPresenter, await this.webhooks.deliveries(auth, webhookId, query));
  }

  @Post(':webhookId/deliveries/:deliveryId/redeliver')
  @HttpCode(200)
  @WebhookIdParam
  @ApiParam({ name: 'deliveryId', description: 'A delivery of that webhook, from its delivery log' })
  @ApiRoute({
    summary: 'Send a delivery again now, with the same delivery id and body (extension)',
    description:
      'An unknown delivery is 404 NOT_FOUND; a delivery of an inactive webhook is 400 (activate it first).',
    ok: deliveryDocs,
    errors: ['WEBHOOK_NOT_FOUND', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
  })
  async redeliver(
    @Auth() auth: AuthContext,
    @Param('webhookId') webhookId: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<Presented<Delivery>> {
    return present(DeliveryPresenter, await this.webhooks.redeliver(auth, webhookId, deliveryId));
  }
}
