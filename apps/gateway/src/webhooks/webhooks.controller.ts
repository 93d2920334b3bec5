import { Body, Param, Query } from '@nestjs/common';
import {
  ActionRoute,
  ManagementController,
  ReadRoute,
  RemoveRoute,
  UpdateRoute,
} from '../common/http/endpoints';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
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
@ManagementController('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @ActionRoute('/', WebhookRoutes.create)
  async create(@Auth() auth: AuthContext, @Body() dto: CreateWebhookDto) {
    return present(WebhookCreatedPresenter, await this.webhooks.create(auth, dto));
  }

  @ReadRoute('/', WebhookRoutes.list)
  async list(@Auth() auth: AuthContext) {
    return present(WebhookListPresenter, await this.webhooks.list(auth));
  }

  @UpdateRoute(':webhookId', WebhookRoutes.update)
  async update(@Auth() auth: AuthContext, @WebhookId() id: string, @Body() dto: UpdateWebhookDto) {
    return present(WebhookPresenter, await this.webhooks.update(auth, id, dto));
  }

  @ActionRoute(':webhookId/rotate-secret', WebhookRoutes.rotateSecret)
  async rotateSecret(@Auth() auth: AuthContext, @WebhookId() id: string) {
    return present(WebhookRotatedPresenter, await this.webhooks.rotateSecret(auth, id));
  }

  @RemoveRoute(':webhookId', WebhookRoutes.remove)
  async remove(@Auth() auth: AuthContext, @WebhookId() id: string) {
    return present(WebhookDeletedPresenter, await this.webhooks.remove(auth, id));
  }

  @ReadRoute(':webhookId/deliveries', WebhookRoutes.deliveries)
  async deliveries(@Auth() auth: AuthContext, @WebhookId() id: string, @Query() page: DeliveryListQueryDto) {
    return present(DeliveryListPresenter, await this.webhooks.deliveries(auth, id, page));
  }

  @ActionRoute(':webhookId/deliveries/:deliveryId/redeliver', WebhookRoutes.redeliver)
  async redeliver(@Auth() auth: AuthContext, @WebhookId() id: string, @Param('deliveryId') delivery: string) {
    return present(DeliveryPresenter, await this.webhooks.redeliver(auth, id, delivery));
  }
}
