import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext, RateLimit, type RateLimitState } from '../common/http/request-context';
import { ApiRoute } from '../openapi/api-route';
import { CreditsPresenter, LedgerPresenter, UsagePresenter } from './credits.presenter';
import { LedgerQueryDto, UsageQueryDto } from './dto/credits.dto';
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

  @Get('ledger')
  @ApiRoute(CreditsRoutes.ledger)
  async ledger(@Auth() auth: AuthContext, @Query() query: LedgerQueryDto) {
    return present(LedgerPresenter, await this.credits.ledger(auth, query));
  }

  @Get('usage')
  @ApiRoute(CreditsRoutes.usage)
  async usage(@Auth() auth: AuthContext, @Query() query: UsageQueryDto) {
    return present(UsagePresenter, await this.credits.usage(auth, query));
  }
}
