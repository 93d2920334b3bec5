import { Body, Controller, Delete, Get, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { PostOk } from '../common/http/post-ok';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
import { FullScope } from '../common/http/route-policy';
import { ApiRoute } from '../openapi/api-route';
import { CreateKeyDto } from './dto/keys.dto';
import { KeyRoutes } from './keys.openapi';
import { KeyCreatedPresenter, KeyListPresenter, KeyRevokedPresenter } from './keys.presenter';
import { KeysService } from './keys.service';

/** The account's API keys, self-service; "other" rate class, refused to a key of the `verify` scope. */
@ApiTags('keys')
@FullScope()
@Controller('keys')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Get()
  @ApiRoute(KeyRoutes.list)
  async list(@Auth() auth: AuthContext) {
    return present(KeyListPresenter, await this.keys.list(auth));
  }

  @PostOk()
  @ApiRoute(KeyRoutes.create)
  async create(@Auth() auth: AuthContext, @Body() dto: CreateKeyDto) {
    return present(KeyCreatedPresenter, await this.keys.create(auth, dto));
  }

  @Delete(':keyId')
  @ApiRoute(KeyRoutes.revoke)
  async revoke(@Auth() auth: AuthContext, @Param('keyId') keyId: string) {
    return present(KeyRevokedPresenter, await this.keys.revoke(auth, keyId));
  }
}
