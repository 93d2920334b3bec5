import { Body, Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { PostOk } from '../common/http/post-ok';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
import { RateLimitClass } from '../common/rate-limit/rate-classes';
import { ApiRoute } from '../openapi/api-route';
import { DisposableDto, VerifyBulkDto, VerifyDomainDto, VerifySingleDto } from './dto/verify.dto';
import { DomainReportPresenter } from './domain-report.presenter';
import { BulkPresenter, DisposablePresenter, SinglePresenter } from './verification.presenter';
import { VerifyRoutes } from './verify.openapi';
import { VerifyService } from './verify.service';

@ApiTags('verification')
@Controller('verify')
export class VerifyController {
  constructor(private readonly verify: VerifyService) {}

  @PostOk('single')
  @RateLimitClass('single')
  @ApiRoute(VerifyRoutes.single)
  async single(@Auth() auth: AuthContext, @Body() dto: VerifySingleDto) {
    return present(SinglePresenter, await this.verify.single(auth, dto));
  }

  @PostOk('bulk')
  @RateLimitClass('bulk')
  @ApiRoute(VerifyRoutes.bulk)
  async bulk(@Auth() auth: AuthContext, @Body() dto: VerifyBulkDto) {
    return present(BulkPresenter, await this.verify.bulk(auth, dto));
  }

  @PostOk('disposable')
  @RateLimitClass('disposable')
  @ApiRoute(VerifyRoutes.disposablePost)
  disposablePost(@Auth() auth: AuthContext, @Body() dto: DisposableDto) {
    return present(DisposablePresenter, this.verify.disposable(auth, dto));
  }

  @Get('disposable')
  @RateLimitClass('disposable')
  @ApiRoute(VerifyRoutes.disposableGet)
  disposableGet(@Auth() auth: AuthContext, @Query() query: DisposableDto) {
    return present(DisposablePresenter, this.verify.disposable(auth, query));
  }

  @Get('domain')
  @RateLimitClass('single')
  @ApiRoute(VerifyRoutes.domain)
  async domain(@Auth() auth: AuthContext, @Query() query: VerifyDomainDto) {
    return present(DomainReportPresenter, await this.verify.domain(auth, query));
  }
}
