import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { present, type Presented } from '../common/http/presenter';
import { Auth, type AuthContext, RateLimit, type RateLimitState } from '../common/http/request-context';
import { ApiErrors, ApiStyledOk } from '../openapi/styled-responses';
import { CreditsPresenter, type CreditsView } from './credits.presenter';
import { creditsExamples, creditsSchemas } from './credits.openapi';
import { CreditsService } from './credits.service';

@ApiTags('credits')
@Controller('credits')
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @Get()
  @ApiOperation({ summary: 'Credit balance of the authenticated account' })
  @ApiStyledOk({ description: 'Credit account', ...creditsSchemas, ...creditsExamples })
  @ApiErrors('INVALID_API_KEY', 'RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE')
  async get(
    @Auth() auth: AuthContext,
    @RateLimit() rateLimit: RateLimitState,
  ): Promise<Presented<CreditsView>> {
    return present(CreditsPresenter, { balance: await this.credits.balance(auth), rateLimit });
  }
}
