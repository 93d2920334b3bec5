import type { DynamicModule, Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { JetStreamKit } from '@emailverify/messaging';
import { serviceModule } from '@emailverify/service-kit';
import { MulterModule } from '@nestjs/platform-express';
import { ApiKeyGuard } from './common/auth/api-key.guard';
import { AuthService } from './common/auth/auth.service';
import { ScopeGuard } from './common/auth/scope.guard';
import { ApiExceptionFilter } from './common/http/api-exception.filter';
import { JsonBodyGuard } from './common/http/json-body.guard';
import { IdempotencyGuard } from './common/idempotency/idempotency.guard';
import { IdempotencyService } from './common/idempotency/idempotency.service';
import { createValidationPipe } from './common/http/validation';
import { RateLimitGuard } from './common/rate-limit/rate-limit.guard';
import { RateLimiterService } from './common/rate-limit/rate-limiter.service';
import { gatewayConfig, type GatewayConfig } from './config';
import { GatewayMetrics } from './gateway.metrics';
import { CreditsController } from './credits/credits.controller';
import { CreditsService } from './credits/credits.service';
import { KeysController } from './keys/keys.controller';
import { KeysService } from './keys/keys.service';
import { serviceChecks } from './health/gateway-checks';
import { FilesController } from './files/files.controller';
import { FilesService } from './files/files.service';
import { ObjectStoreStorage } from './files/upload.storage';
import { VerifyController } from './verify/verify.controller';
import { VerifyService } from './verify/verify.service';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WebhooksService } from './webhooks/webhooks.service';

/**
 * What every request passes, in order: guards authenticate, rate-limit, check the key's scope, parse a JSON
 * body, then check an Idempotency-Key (POST and DELETE); one pipe validates DTOs; one filter renders every error
 * in the caller's style. Presenters are rendered as the reply is sent (GatewayExpressAdapter). No interceptor
 * runs on every route: each would wrap every reply in rxjs.
 */
const HTTP_PIPELINE: Provider[] = [
  GatewayMetrics,
  AuthService,
  RateLimiterService,
  IdempotencyService,
  { provide: APP_GUARD, useClass: ApiKeyGuard },
  { provide: APP_GUARD, useClass: RateLimitGuard },
  { provide: APP_GUARD, useClass: ScopeGuard },
  { provide: APP_GUARD, useClass: JsonBodyGuard },
  { provide: APP_GUARD, useClass: IdempotencyGuard },
  { provide: APP_PIPE, useFactory: createValidationPipe },
  { provide: APP_FILTER, useClass: ApiExceptionFilter },
];

/**
 * The API: its controllers and services behind the HTTP pipeline, and uploads streamed into the object store.
 * Needs MessageBus, JetStreamKit, GATEWAY_CONFIG, LOGGER and Metrics from the application (production's below,
 * or the stand-ins of the controller specs' GatewayHarness).
 */
export function gatewayApi(
  config: Readonly<GatewayConfig>,
): Required<Pick<DynamicModule, 'imports' | 'controllers' | 'providers'>> {
  return {
    imports: [
      MulterModule.registerAsync({
        inject: [JetStreamKit],
        useFactory: (kit: JetStreamKit) => ({
          storage: new ObjectStoreStorage(kit, config.FILE_STORE_MAX_BYTES),
          // File names as UTF-8 (curl and browsers send them so); busboy's default would read them as Latin-1.
          defParamCharset: 'utf8',
          limits: { fileSize: config.FILE_MAX_BYTES, files: 1, fields: 10, fieldSize: 4096, parts: 12 },
        }),
      }),
    ],
    controllers: [CreditsController, VerifyController, FilesController, WebhooksController, KeysController],
    providers: [...HTTP_PIPELINE, CreditsService, VerifyService, FilesService, WebhooksService, KeysService],
  };
}

/** The HTTP entry: the API on the suite's NATS bus. */
export function gatewayModule(config: Readonly<GatewayConfig>): DynamicModule {
  return serviceModule(gatewayConfig, config, {
    extraChecks: serviceChecks,
    ...gatewayApi(config),
  });
}
