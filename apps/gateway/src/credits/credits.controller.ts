import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext, RateLimit, type RateLimitState } from '../common/http/request-context';
import { ApiRoute } from '../openapi/api-route';
import { CreditsPresenter } from './credits.presenter';
import { CreditsRoutes } from './credits.openapi';
import { CreditsService } from './credits.service';

@ApiTags('credits')
@Controller('credits')
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Get()
  @ApiRoute(CreditsRoutes.balance)
  async get(@Auth() auth: AuthContext, @RateLimit() rateLimit: RateLimitState) {
    return present(CreditsPresenter, { balance: await this.credits.balance(auth), rateLimit });
  }
}
