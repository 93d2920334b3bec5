import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { Presented } from './presenter';
import type { GatewayRequest } from './request-context';
import { renderStyle } from './style';

@Injectable()
export class PresenterInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    return next
      .handle()
      .pipe(
        map((result: unknown) => (result instanceof Presented ? result.render(renderStyle(req)) : result)),
      );
  }
}
