import { Body, Controller, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ActionRoute, ReadRoute } from '../common/http/endpoints';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext } from '../common/http/request-context';
import { RateLimitClass } from '../common/rate-limit/rate-classes';
import { DisposableDto, VerifyBulkDto, VerifyDomainDto, VerifySingleDto } from './dto/verify.dto';
import { DomainReportPresenter } from './domain-report.presenter';
import { BulkPresenter, DisposablePresenter, SinglePresenter } from './verification.presenter';
import { VerifyRoutes } from './verify.openapi';
import { VerifyService } from './verify.service';

@ApiTags('verification')
@Controller('verify')
export class VerifyController {
  constructor(private readonly verify: VerifyService) {}

  @ActionRoute('single', VerifyRoutes.single)
  @RateLimitClass('single')
  async single(@Auth() auth: AuthContext, @Body() dto: VerifySingleDto) {
    return present(SinglePresenter, await this.verify.single(auth, dto));
  }

  @ActionRoute('bulk', VerifyRoutes.bulk)
  @RateLimitClass('bulk')
  async bulk(@Auth() auth: AuthContext, @Body() dto: VerifyBulkDto) {
    return present(BulkPresenter, await this.verify.bulk(auth, dto));
  }

  @ActionRoute('disposable', VerifyRoutes.disposablePost)
  @RateLimitClass('disposable')
  disposablePost(@Auth() auth: AuthContext, @Body() dto: DisposableDto) {
    return present(DisposablePresenter, this.verify.disposable(auth, dto));
  }

  @ReadRoute('disposable', VerifyRoutes.disposableGet)
  @RateLimitClass('disposable')
  disposableGet(@Auth() auth: AuthContext, @Query() query: DisposableDto) {
    return present(DisposablePresenter, this.verify.disposable(auth, query));
  }

  @ReadRoute('domain', VerifyRoutes.domain)
  @RateLimitClass('single')
  async domain(@Auth() auth: AuthContext, @Query() query: VerifyDomainDto) {
    return present(DomainReportPresenter, await this.verify.domain(auth, query));
  }
}
