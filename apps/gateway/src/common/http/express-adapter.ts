import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { Presented } from './presenter';
import type { GatewayRequest } from './request-context';
import { renderStyle } from './style';

/** Express under Nest, rendering a controller's Presented result in the request's style as it is sent. */
export class GatewayExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const rendered =
      body instanceof Presented ? body.render(renderStyle(response.req as GatewayRequest)) : body;
    return super.reply(response, rendered, statusCode);
  }
}
