import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { LOGGER, Metrics } from '@emailverify/service-kit';
import { DomainError } from '@emailverify/contracts';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { gatewayModule } from './app.module';
import { renderError } from './common/http/error-body';
import { accessMiddleware } from './common/http/access.middleware';
import { GatewayExpressAdapter } from './common/http/express-adapter';
import { renderStyle } from './common/http/style';
import type { GatewayRequest } from './common/http/request-context';
import type { GatewayConfig } from './config';
import { buildOpenApiDocuments, mountOpenApi } from './openapi/document';
import { CONSOLE_PATH, consoleHandler } from './console/console';

/**
 * Builds the gateway application (used by main and by tests). Controller specs pass a narrower module (the
 * HTTP pipeline and one feature on a stand-in bus), set up exactly as production sets up the whole one.
 */
export async function createGatewayApp(
  config: Readonly<GatewayConfig>,
  module: DynamicModule = gatewayModule(config),
): Promise<INestApplication> {
  const adapter = new GatewayExpressAdapter();
  const app = await NestFactory.create<NestExpressApplication>(module, adapter, {
    bodyParser: false,
    logger: false,
    abortOnError: false,
  });
  (app.getHttpServer() as Server).keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  app.set('trust proxy', config.TRUST_PROXY);
  app.disable('x-powered-by');
  // No ETag: Express would hash every JSON body for it, and no reply of this API is asked for conditionally
  // (each names when it was made, and the contract has no If-None-Match).
  app.set('etag', false);
  app.enableShutdownHooks();
  const logger = app.get<Logger>(LOGGER);
  const httpRequests = app
    .get(Metrics)
    .histogram('http_request_seconds', 'HTTP requests by route and status', ['method', 'route', 'status']);
  app.use(accessMiddleware(logger, httpRequests));
  app.setGlobalPrefix('v1', { exclude: ['health/live', 'health/ready', 'metrics'] });
  // The documentation and the web console after every API route: an API request is never matched against them.
  adapter.mountAfterRoutes(() => mountOpenApi(app, buildOpenApiDocuments(app, config.PUBLIC_BASE_URL)));
  adapter.mountAfterRoutes(() => app.use(CONSOLE_PATH, consoleHandler(config.CONSOLE_DIR, logger)));
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
