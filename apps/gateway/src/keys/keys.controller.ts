import { Body, Param } from '@nestjs/common';
import { ActionRoute, ManagementController, ReadRoute, RemoveRoute } from '../common/http/endpoints';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
import { CreateKeyDto } from './dto/keys.dto';
import { KeyRoutes } from './keys.openapi';
import { KeyCreatedPresenter, KeyListPresenter, KeyRevokedPresenter } from './keys.presenter';
import { KeysService } from './keys.service';

/** The account's API keys, self-service; "other" rate class, refused to a key of the `verify` scope. */
@ManagementController('keys')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @ReadRoute('/', KeyRoutes.list)
  async list(@Auth() auth: AuthContext) {
    return present(KeyListPresenter, await this.keys.list(auth));
  }

  @ActionRoute('/', KeyRoutes.create)
  async create(@Auth() auth: AuthContext, @Body() dto: CreateKeyDto) {
    return present(KeyCreatedPresenter, await this.keys.create(auth, dto));
  }

  @RemoveRoute(':keyId', KeyRoutes.revoke)
  async revoke(@Auth() auth: AuthContext, @Param('keyId') keyId: string) {
    return present(KeyRevokedPresenter, await this.keys.revoke(auth, keyId));
  }
}
