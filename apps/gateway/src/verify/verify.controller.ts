import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { BilledVerificationResult, VerifyBulkReply } from '@emailverify/contracts';
import { present, type Presented } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
import { RateLimitClass } from '../common/rate-limit/rate-classes';
import { ApiErrors, ApiStyledOk } from '../openapi/styled-responses';
import { DisposableDto, VerifyBulkDto, VerifySingleDto } from './dto/verify.dto';
import { BulkPresenter, DisposablePresenter, SinglePresenter } from './verification.presenter';
import { bulkDocs, disposableDocs, singleDocs } from './verify.openapi';
import { VerifyService } from './verify.service';

@ApiTags('verification')
@Controller('verify')
export class VerifyController {
  constructor(private readonly verify: VerifyService) {}

  @Post('single')
  @HttpCode(200)
  @RateLimitClass('single')
  @ApiOperation({
    summary: 'Verify one address',
    description: 'Costs 1 credit unless cached or unknown; force_refresh always costs 1.',
  })
  @ApiStyledOk({ description: 'Verification result', ...singleDocs })
  @ApiErrors(
    'INVALID_REQUEST',
    'INVALID_EMAIL',
    'INVALID_API_KEY',
    'INSUFFICIENT_CREDITS',
    'PAYLOAD_TOO_LARGE',
    'RATE_LIMIT_EXCEEDED',
    'SERVICE_UNAVAILABLE',
    'TIMEOUT',
  )
  async single(
    @Auth() auth: AuthContext,
    @Body() dto: VerifySingleDto,
  ): Promise<Presented<BilledVerificationResult>> {
    return present(SinglePresenter, await this.verify.single(auth, dto));
  }

  @Post('bulk')
  @HttpCode(200)
  @RateLimitClass('bulk')
  @ApiOperation({ summary: 'Verify a batch of addresses synchronously (up to BULK_MAX_EMAILS, default 100)' })
  @ApiStyledOk({ description: 'Batch result', ...bulkDocs })
  @ApiErrors(
    'INVALID_REQUEST',
    'INVALID_API_KEY',
    'INSUFFICIENT_CREDITS',
    'PAYLOAD_TOO_LARGE',
    'RATE_LIMIT_EXCEEDED',
    'SERVICE_UNAVAILABLE',
    'TIMEOUT',
  )
  async bulk(@Auth() auth: AuthContext, @Body() dto: VerifyBulkDto): Promise<Presented<VerifyBulkReply>> {
    return present(BulkPresenter, await this.verify.bulk(auth, dto));
  }

  @Post('disposable')
  @HttpCode(200)
  @RateLimitClass('disposable')
  @ApiOperation({ summary: 'Is the address on a known disposable provider? Free: no credits.' })
  @ApiStyledOk({ description: 'Disposable check', ...disposableDocs })
  @ApiErrors('INVALID_REQUEST', 'INVALID_EMAIL', 'INVALID_API_KEY', 'RATE_LIMIT_EXCEEDED')
  disposablePost(@Body() dto: DisposableDto): Presented<ReturnType<VerifyService['disposable']>> {
    return present(DisposablePresenter, this.verify.disposable(dto));
  }

  @Get('disposable')
  @RateLimitClass('disposable')
  @ApiOperation({ summary: 'Is the address on a known disposable provider? Free: no credits.' })
  @ApiStyledOk({ description: 'Disposable check', ...disposableDocs })
  @ApiErrors('INVALID_REQUEST', 'INVALID_EMAIL', 'INVALID_API_KEY', 'RATE_LIMIT_EXCEEDED')
  disposableGet(@Query() query: DisposableDto): Presented<ReturnType<VerifyService['disposable']>> {
    return present(DisposablePresenter, this.verify.disposable(query));
  }
}
