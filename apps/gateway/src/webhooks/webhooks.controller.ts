import { Body, Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { PostOk } from '../common/http/post-ok';
import { IdempotencyKeyHeader } from '../common/idempotency/idempotency-key.header';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
import { FullScope } from '../common/http/route-policy';
import { ApiRoute } from '../openapi/api-route';
import { CreateWebhookDto, DeliveryListQueryDto, UpdateWebhookDto } from './dto/webhooks.dto';
import { WebhookRoutes } from './webhooks.openapi';
import {
  DeliveryListPresenter,
  DeliveryPresenter,
  WebhookCreatedPresenter,
  WebhookDeletedPresenter,
  WebhookListPresenter,
  WebhookPresenter,
  WebhookRotatedPresenter,
} from './webhooks.presenter';
import { WebhooksService } from './webhooks.service';

/** The webhook named by the path. */
const WebhookId = () => Param('webhookId');

/**
 * Webhook CRUD and the delivery log; every route is in the "other" rate class (the default), and refused to a
 * key of the `verify` scope.
 */
@ApiTags('webhooks')
@FullScope()
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @PostOk()
  @ApiRoute(WebhookRoutes.create)
  async create(@Auth() auth: AuthContext, @Body() dto: CreateWebhookDto) {
    return present(WebhookCreatedPresenter, await this.webhooks.create(auth, dto));
  }

  @Get()
  @ApiRoute(WebhookRoutes.list)
  async list(@Auth() auth: AuthContext) {
    return present(WebhookListPresenter, await this.webhooks.list(auth));
  }

  @Patch(':webhookId')
  @ApiRoute(WebhookRoutes.update)
  async update(@Auth() auth: AuthContext, @WebhookId() id: string, @Body() dto: UpdateWebhookDto) {
    return present(WebhookPresenter, await this.webhooks.update(auth, id, dto));
  }

  @PostOk(':webhookId/rotate-secret')
  @ApiRoute(WebhookRoutes.rotateSecret)
  async rotateSecret(@Auth() auth: AuthContext, @WebhookId() id: string) {
    return present(WebhookRotatedPresenter, await this.webhooks.rotateSecret(auth, id));
  }

  @Delete(':webhookId')
  @IdempotencyKeyHeader()
  @ApiRoute(WebhookRoutes.remove)
  async remove(@Auth() auth: AuthContext, @WebhookId() id: string) {
    return present(WebhookDeletedPresenter, await this.webhooks.remove(auth, id));
  }

  @Get(':webhookId/deliveries')
  @ApiRoute(WebhookRoutes.deliveries)
  async deliveries(@Auth() auth: AuthContext, @WebhookId() id: string, @Query() page: DeliveryListQueryDto) {
    return present(DeliveryListPresenter, await this.webhooks.deliveries(auth, id, page));
  }

  @PostOk(':webhookId/deliveries/:deliveryId/redeliver')
  @ApiRoute(WebhookRoutes.redeliver)
  async redeliver(@Auth() auth: AuthContext, @WebhookId() id: string, @Param('deliveryId') delivery: string) {
    return present(DeliveryPresenter, await this.webhooks.redeliver(auth, id, delivery));
  }
}
