import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { present, type Presented } from '../common/http/presenter';
import { Auth, type AuthContext, RateLimit, type RateLimitState } from '../common/http/request-context';
import { ApiRoute } from '../openapi/api-route';
import { CreditsPresenter, type CreditsView } from './credits.presenter';
import { creditsDocs } from './credits.openapi';
import { CreditsService } from './credits.service';

@ApiTags('credits')
@Controller('credits')
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Get()
  @ApiRoute({
    summary: 'Credit balance of the authenticated account',
    ok: creditsDocs,
    errors: ['SERVICE_UNAVAILABLE'],
  })
  async get(
    @Auth() auth: AuthContext,
    @RateLimit() rateLimit: RateLimitState,
  ): Promise<Presented<CreditsView>> {
    return present(CreditsPresenter, { balance: await this.credits.balance(auth), rateLimit });
  }
}
