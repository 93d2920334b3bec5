import 'reflect-metadata';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger, Metrics } from '@emailverify/service-kit';
import type { Response } from 'express';
import { pinoHttp } from 'pino-http';
import { gatewayModule } from './app.module';
import { requestIdMiddleware } from './common/http/request-id.middleware';
import type { GatewayRequest } from './common/http/request-context';
import type { GatewayConfig } from './config';
import { buildOpenApiDocument, mountOpenApi } from './openapi/document';

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
      customProps: (req) => ({ accountId: (req as GatewayRequest).auth?.accountId }),
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
  return app;
}
