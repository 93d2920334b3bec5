import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { Presented } from './presenter';
import type { GatewayRequest } from './request-context';
import { renderStyle } from './style';

/** The Content-Type Express's res.json() gives a JSON reply (it adds the charset to application/json). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Express under Nest, rendering a controller's Presented result in the request's style as it is sent, and
 * mounting what `mountAfterRoutes` was given after the API's routes.
 */
export class GatewayExpressAdapter extends ExpressAdapter {
  private readonly afterRoutes: Array<() => void> = [];

  /**
   * Mounts routes once Nest has registered every route of the API, before its not-found handler. Express tries
   * an application's routes one after another for every request: routes mounted here (the documentation) are
   * never tried for an API request.
   */
  mountAfterRoutes(mount: () => void): void {
    this.afterRoutes.push(mount);
  }

  override setNotFoundHandler(...args: Parameters<ExpressAdapter['setNotFoundHandler']>): unknown {
    for (const mount of this.afterRoutes.splice(0)) mount();
    return super.setNotFoundHandler(...args);
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!(body instanceof Presented)) return super.reply(response, body, statusCode);
    const rendered = body.render(renderStyle(response.req as GatewayRequest));
    if (statusCode !== undefined && statusCode !== null) response.status(statusCode);
    if (!sendJson(response, rendered)) return super.reply(response, rendered);
    return response;
  }
}

/**
 * Sends `body` as res.json() would send it in the reply it does not change: the same bytes, status and headers
 * (Content-Type with its charset, Content-Length; this application makes no ETag), the body left out for HEAD.
 * res.json() takes about a dozen more steps to reach them (the settings, the Content-Type parsed and formatted
 * three times, freshness). False when res.json() could answer differently, which is then left to it: a reply
 * whose status has no body, one with its own Content-Type or Transfer-Encoding, or a conditional request.
 */
function sendJson(res: Response, body: unknown): boolean {
  const status = res.statusCode;
  const headers = res.req.headers;
  if (
    status === 204 ||
    status === 205 ||
    status === 304 ||
    res.hasHeader('content-type') ||
    res.hasHeader('transfer-encoding') ||
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined
  ) {
    return false;
  }
  const text = JSON.stringify(body);
  if (text === undefined) return false;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  if (res.req.method === 'HEAD') res.end();
  else res.end(text, 'utf8');
  return true;
}
