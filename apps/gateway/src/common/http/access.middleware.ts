import { randomUUID } from 'node:crypto';
import type { NextFunction, Response } from 'express';
import type { Logger } from 'pino';
import type { Histogram } from 'prom-client';
import type { GatewayRequest } from './request-context';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Probes and scrapes are counted in the metrics but get no access line. */
const UNLOGGED = new Set(['/health/live', '/metrics']);

/** What the access log keeps of a request: the path without its query string, and no header. */
export function accessRequest(req: { id?: unknown; method?: string; url?: string }): Record<string, unknown> {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return { id: req.id, method: req.method, path: query === -1 ? url : url.slice(0, query) };
}

/**
 * The first thing every request meets: takes X-Request-Id from the caller (when sane) or makes one (it travels
 * to every service and back), and once the reply is over writes one access line and observes its duration.
 * Access lines name the path without its query string and no header of either side: queries and headers carry
 * API keys, link signatures and customers' addresses, and Location holds a signed link.
 */
export function accessMiddleware(logger: Logger, requests: Histogram<'method' | 'route' | 'status'>) {
  // The service's redaction looks for credentials in request headers, which an access line never holds: its
  // lines skip that walk (a third of what writing one cost).
  const access = logger.child({}, { redact: { paths: [] } });
  return (req: GatewayRequest, res: Response, next: NextFunction): void => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && VALID_ID.test(given) ? given : randomUUID();
    req.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    // 'close' follows 'finish' on a reply that was sent, and comes alone when the client went away first.
    res.once('close', () => {
      const seconds = (performance.now() - started) / 1000;
      const status = res.statusCode;
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      requests.observe({ method: req.method, route, status: String(status) }, seconds);
      if (UNLOGGED.has(req.url)) return;
      access.info(
        {
          req: accessRequest({ id, method: req.method, url: req.originalUrl }),
          res: { statusCode: status },
          responseTime: Math.round(seconds * 1000),
          accountId: req.auth?.accountId,
          apiKeyId: req.auth?.apiKeyId,
        },
        !res.writableFinished ? 'request aborted' : status >= 500 ? 'request errored' : 'request completed',
      );
    });
    next();
  };
}
