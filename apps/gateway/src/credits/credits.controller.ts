import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Subjects } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { present, type Presented } from '../common/http/presenter';
import type { GatewayRequest } from '../common/http/request-context';
import { ApiErrors, ApiStyledOk } from '../openapi/styled-responses';
import { CreditsPresenter, type CreditsView } from './credits.presenter';
import { creditsExamples, creditsSchemas } from './credits.openapi';

@ApiTags('credits')
@Controller('credits')
export class CreditsController {
  constructor(private readonly bus: MessageBus) {}

  @Get()
  @ApiOperation({ summary: 'Credit balance of the authenticated account' })
  @ApiStyledOk({ description: 'Credit account', ...creditsSchemas, ...creditsExamples })
  @ApiErrors('INVALID_API_KEY', 'RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE')
  async get(@Req() req: GatewayRequest): Promise<Presented<CreditsView>> {
    const auth = req.auth!;
    const balance = await this.bus.request(
      Subjects.creditsBalanceGet,
      { accountId: auth.accountId, apiKeyId: auth.apiKeyId },
      { requestId: req.requestId },
    );
    return present(CreditsPresenter, { balance, rateLimit: req.rateLimit! });
  }
}
