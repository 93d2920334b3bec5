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
  return { id: req.id, method: req.method, path: pathOf(req.url ?? '') };
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** What one access line tells. */
export interface AccessEntry {
  id: string;
  method: string;
  /** The request's URL: its path is logged, never its query string. */
  url: string;
  statusCode: number;
  responseTimeMs: number;
  accountId?: string;
  apiKeyId?: string;
  msg: 'request completed' | 'request errored' | 'request aborted';
}

/**
 * Writes access lines through `logger.info`, pino's own path: its level check, the bindings and mixin every line
 * has (the request id of the current message), its time and redaction. A line written directly into pino's
 * stream, by its private symbols, showed no gain at the gateway's load (docs/performance.md, "access lines").
 */
export function accessLineWriter(logger: Logger): (entry: AccessEntry) => void {
  return (entry) =>
    logger.info(
      {
        req: accessRequest(entry),
        res: { statusCode: entry.statusCode },
        responseTime: entry.responseTimeMs,
        accountId: entry.accountId,
        apiKeyId: entry.apiKeyId,
      },
      entry.msg,
    );
}

/**
 * The first thing every request meets: takes X-Request-Id from the caller (when sane) or makes one (it travels
 * to every service and back), and once the reply is over writes one access line and observes its duration.
 * Access lines name the path without its query string and no header of either side: queries and headers carry
 * API keys, link signatures and customers' addresses, and Location holds a signed link.
 */
export function accessMiddleware(logger: Logger, requests: Histogram<'method' | 'route' | 'status'>) {
  const writeAccess = accessLineWriter(logger);
  return (req: GatewayRequest, res: Response, next: NextFunction): void => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && VALID_ID.test(given) ? given : randomUUID();
    req.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    // 'close' follows 'finish' on a reply that was sent, and comes alone when the client went away first; it
    // comes once.
    res.on('close', () => {
      const seconds = (performance.now() - started) / 1000;
      const status = res.statusCode;
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      requests.observe({ method: req.method, route, status: String(status) }, seconds);
      if (UNLOGGED.has(req.url)) return;
      writeAccess({
        id,
        method: req.method,
        url: req.originalUrl,
        statusCode: status,
        responseTimeMs: Math.round(seconds * 1000),
        accountId: req.auth?.accountId,
        apiKeyId: req.auth?.apiKeyId,
        msg: !res.writableFinished
          ? 'request aborted'
          : status >= 500
            ? 'request errored'
            : 'request completed',
      });
    });
    next();
  };
}
