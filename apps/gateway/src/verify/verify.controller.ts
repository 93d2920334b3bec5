import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { BilledVerificationResult, ErrorCode, VerifyBulkReply } from '@emailverify/contracts';
import { present, type Presented } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
import { RateLimitClass } from '../common/rate-limit/rate-classes';
import { ApiRoute, type RouteDocs } from '../openapi/api-route';
import { DisposableDto, VerifyBulkDto, VerifySingleDto } from './dto/verify.dto';
import { BulkPresenter, DisposablePresenter, SinglePresenter } from './verification.presenter';
import { bulkDocs, disposableDocs, singleDocs } from './verify.openapi';
import { VerifyService } from './verify.service';

/** What a paid verification can fail with, besides a key or rate-limit refusal. */
const PAID_VERIFICATION_ERRORS: ErrorCode[] = [
  'INSUFFICIENT_CREDITS',
  'PAYLOAD_TOO_LARGE',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
];

/** The disposable check, by POST (a JSON body) or GET (a query): an in-memory lookup that calls no service. */
const DISPOSABLE_ROUTE: RouteDocs = {
  summary: 'Is the address on a known disposable provider? Free: no credits.',
  ok: disposableDocs,
  errors: ['INVALID_EMAIL'],
};

@ApiTags('verification')
@Controller('verify')
export class VerifyController {
  constructor(private readonly verify: VerifyService) {}

  @Post('single')
  @HttpCode(200)
  @RateLimitClass('single')
  @ApiRoute({
    summary: 'Verify one address',
    description: 'Costs 1 credit unless cached or unknown; force_refresh always costs 1.',
    ok: singleDocs,
    errors: [...PAID_VERIFICATION_ERRORS, 'INVALID_EMAIL'],
  })
  async single(
    @Auth() auth: AuthContext,
    @Body() dto: VerifySingleDto,
  ): Promise<Presented<BilledVerificationResult>> {
    return present(SinglePresenter, await this.verify.single(auth, dto));
  }

  @Post('bulk')
  @HttpCode(200)
  @RateLimitClass('bulk')
  @ApiRoute({
    summary: 'Verify a batch of addresses synchronously (up to BULK_MAX_EMAILS, default 100)',
    ok: bulkDocs,
    errors: PAID_VERIFICATION_ERRORS,
  })
  async bulk(@Auth() auth: AuthContext, @Body() dto: VerifyBulkDto): Promise<Presented<VerifyBulkReply>> {
    return present(BulkPresenter, await this.verify.bulk(auth, dto));
  }

  @Post('disposable')
  @HttpCode(200)
  @RateLimitClass('disposable')
  @ApiRoute({ ...DISPOSABLE_ROUTE, errors: [...DISPOSABLE_ROUTE.errors, 'PAYLOAD_TOO_LARGE'] })
  disposablePost(@Body() dto: DisposableDto): Presented<ReturnType<VerifyService['disposable']>> {
    return present(DisposablePresenter, this.verify.disposable(dto));
  }

  @Get('disposable')
  @RateLimitClass('disposable')
  @ApiRoute(DISPOSABLE_ROUTE)
  disposableGet(@Query() query: DisposableDto): Presented<ReturnType<VerifyService['disposable']>> {
    return present(DisposablePresenter, this.verify.disposable(query));
  }
}
