import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger, Metrics } from '@emailverify/service-kit';
import { DomainError } from '@emailverify/contracts';
import type { NextFunction, Request, Response } from 'express';
import { pinoHttp } from 'pino-http';
import { gatewayModule } from './app.module';
import { renderError } from './common/http/error-body';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import { renderStyle } from './common/http/style';
import type { GatewayRequest } from './common/http/request-context';
import type { GatewayConfig } from './config';
import { buildOpenApiDocument, mountOpenApi } from './openapi/document';

/** What the access log keeps of a request. */
export function accessRequest(req: { id?: unknown; method?: string; url?: string }): Record<string, unknown> {
  return { id: req.id, method: req.method, path: (req.url ?? '').split('?')[0] };
}

/**
 * Builds the gateway application (used by main and by tests). Controller specs pass a narrower module (the
 * HTTP pipeline and one feature on a stand-in bus), set up exactly as production sets up the whole one.
 */
export async function createGatewayApp(
  config: Readonly<GatewayConfig>,
  module: DynamicModule = gatewayModule(config),
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bodyParser: false,
    logger: false,
    abortOnError: false,
  });
  app.set('trust proxy', config.TRUST_PROXY);
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  app.use(requestIdMiddleware);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  app.use(
    pinoHttp({
      logger,
      genReqId: (req) => (req as GatewayRequest).requestId,
      // Access lines name the path without its query string and no header of either side: queries and
      // headers carry API keys, link signatures and customers' addresses, and Location holds a signed link.
      serializers: {
        req: accessRequest,
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customProps: (req) => ({
        accountId: (req as GatewayRequest).auth?.accountId,
        apiKeyId: (req as GatewayRequest).auth?.apiKeyId,
      }),
      autoLogging: { ignore: (req) => req.url === '/health/live' || req.url === '/metrics' },
    }),
  );
  const metrics = app.get(Metrics);
  const httpRequests = metrics.histogram('http_request_seconds', 'HTTP requests by route and status', [
    'method',
    'route',
    'status',
  ]);
  app.use((req: GatewayRequest, res: Response, next: () => void) => {
    const started = performance.now();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      httpRequests.observe(
        { method: req.method, route, status: String(res.statusCode) },
        (performance.now() - started) / 1000,
      );
    });
    next();
  });
  app.setGlobalPrefix('v1', { exclude: ['health/live', 'health/ready', 'metrics'] });
  mountOpenApi(app, buildOpenApiDocument(app, config.PUBLIC_BASE_URL));
  await app.init();
  // After every route: what no route took (paths outside /v1 included) and what Express itself refused (a
  // malformed percent-escape) leave as JSON in the request's style, never as Express's HTML page.
  const express = app.getHttpAdapter().getInstance() as import('express').Express;
  express.use((req: Request, res: Response) => {
    sendError(
      req as GatewayRequest,
      res,
      new DomainError('NOT_FOUND', `No such endpoint: ${req.method} ${req.path}`),
    );
  });
  express.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendError(
        req as GatewayRequest,
        res,
        new DomainError('INVALID_REQUEST', 'The request could not be read'),
      );
      return;
    }
    const errorId = randomUUID();
    logger.error({ err, errorId, method: req.method, path: req.path }, 'unhandled error');
    sendError(
      req as GatewayRequest,
      res,
      new DomainError('INTERNAL_ERROR', `An internal error occurred (error id ${errorId})`),
    );
  });
  return app;
}

function sendError(req: GatewayRequest, res: Response, error: DomainError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const { status, body } = renderError(renderStyle(req), error.code, error.message);
  res.status(status).json(body);
}
