import { Controller, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ReadRoute } from '../common/http/endpoints';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext, RateLimit, type RateLimitState } from '../common/http/request-context';
import { CreditsPresenter, LedgerPresenter, UsagePresenter } from './credits.presenter';
import { LedgerQueryDto, UsageQueryDto } from './dto/credits.dto';
import { CreditsRoutes } from './credits.openapi';
import { CreditsService } from './credits.service';

@ApiTags('credits')
@Controller('credits')
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @ReadRoute('/', CreditsRoutes.balance)
  async get(@Auth() auth: AuthContext, @RateLimit() rateLimit: RateLimitState) {
    return present(CreditsPresenter, { balance: await this.credits.balance(auth), rateLimit });
  }

  @ReadRoute('ledger', CreditsRoutes.ledger)
  async ledger(@Auth() auth: AuthContext, @Query() query: LedgerQueryDto) {
    return present(LedgerPresenter, await this.credits.ledger(auth, query));
  }

  @ReadRoute('usage', CreditsRoutes.usage)
  async usage(@Auth() auth: AuthContext, @Query() query: UsageQueryDto) {
    return present(UsagePresenter, await this.credits.usage(auth, query));
  }
}
