import 'reflect-metadata';
import { setFlagsFromString } from 'node:v8';
import {
  Controller,
  Get,
  Header,
  HttpStatus,
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type Provider,
  Res,
  SetMetadata,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Logger } from 'pino';
import type { BaseConfig, ServiceConfig } from './config';
import { type HealthCheck, runHealthChecks } from './health';
import { createLogger, drainLogs, exitAfterLogOnFatalError } from './logger';
import { Metrics } from './metrics';

export const HEALTH_CHECKS = Symbol('HEALTH_CHECKS');
export const LOGGER = Symbol('LOGGER');
/** Closers run in order at shutdown: drain the bus first, then close pools. */
export const SHUTDOWN_HOOKS = Symbol('SHUTDOWN_HOOKS');

export type ShutdownHook = () => Promise<void>;

/** Marks a route that needs no API key (health, metrics, docs). */
export const IS_PUBLIC = 'emailverify:public';
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

const healthReport = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    checks: {
      type: 'object',
      description: 'One entry per dependency (database, NATS, ...)',
      additionalProperties: {
        type: 'object',
        required: ['status'],
        properties: { status: { type: 'string', enum: ['ok', 'failed'] }, error: { type: 'string' } },
      },
    },
  },
};

@Public()
@ApiTags('operations')
@Controller()
export class ObservabilityController {
  constructor(
    @Inject(HEALTH_CHECKS) private readonly checks: HealthCheck[],
    private readonly metrics: Metrics,
  ) {}

  @Get('health/live')
  @ApiOperation({
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers (no API key)',
    security: [],
  })
  @ApiResponse({
    status: 200,
    description: 'Alive',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['status'],
          properties: { status: { type: 'string', enum: ['ok'] } },
        },
        example: { status: 'ok' },
      },
    },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Readiness: every dependency answers (no API key)',
    security: [],
  })
  @ApiResponse({
    status: 200,
    description: 'Ready',
    content: {
      'application/json': {
        schema: healthReport,
        example: { status: 'ok', checks: { nats: { status: 'ok' }, credits: { status: 'ok' } } },
      },
    },
  })
  @ApiResponse({
    status: 503,
    description: 'A dependency did not answer',
    content: {
      'application/json': {
        schema: healthReport,
        example: {
          status: 'unavailable',
          checks: {
            nats: { status: 'ok' },
            credits: { status: 'failed', error: 'no answer within 2000 ms' },
          },
        },
      },
    },
  })
  async ready(@Res() res: Response): Promise<void> {
    const report = await runHealthChecks(this.checks);
    res.status(report.status === 'ok' ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE).json(report);
  }

  @Get('metrics')
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics in the text exposition format (no API key)',
    security: [],
  })
  @ApiResponse({
    status: 200,
    description: 'The metrics',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}

@Injectable()
export class ShutdownCoordinator implements OnApplicationShutdown {
  constructor(
    @Inject(SHUTDOWN_HOOKS) private readonly hooks: ShutdownHook[],
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationShutdown(signal?: string): Promise<void> {
    this.logger.info({ signal }, 'shutting down');
    for (const hook of this.hooks) {
      try {
        await hook();
      } catch (err) {
        this.logger.warn({ err }, 'shutdown step failed');
      }
    }
    // Nest ends the process by its signal next, which would drop what the log still holds.
    await drainLogs();
  }
}

/**
 * Health, metrics and orderly shutdown for any app of the suite. The app provides HEALTH_CHECKS,
 * SHUTDOWN_HOOKS, LOGGER and Metrics.
 */
@Module({})
export class ObservabilityModule {
  static forRoot(options: { providers: Provider[] }): DynamicModule {
    // Global, and exporting every provider it is given: config, logger, metrics, bus and data source are the
    // app-wide singletons the feature modules inject.
    const tokens = options.providers.map((p) => (typeof p === 'function' ? p : p.provide));
    return {
      module: ObservabilityModule,
      global: true,
      controllers: [ObservabilityController],
      providers: [...options.providers, ShutdownCoordinator],
      exports: tokens,
    };
  }
}

/**
 * Runs an app's start-up: a failure (a bad variable, an unreachable dependency) is printed with its reason and
 * the process exits 1.
 */
export function runMain(name: string, start: () => Promise<unknown>): void {
  exitAfterLogOnFatalError();
  start().catch(async (err: unknown) => {
    process.stderr.write(
      `${name} failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    await drainLogs();
    process.exit(1);
  });
}

export interface RunServiceOptions {
  /**
   * How far the old generation may grow past what survived the last full collection before the next one starts,
   * in percent (V8's heap growing factor, 1 + percent / 100; the limit stays --max-old-space-size). Unset: V8's own
   * factor, which it keeps low when the live heap is small.
   */
  heapGrowingPercent?: number;
}

/**
 * For the services that stream a large file job through them (file-jobs, the verifier): three times the live heap
 * before the next full collection instead of V8's factor of about two, which made them collect every half second
 * during a million-row job. The gateway keeps V8's factor (its upload memory bound). Figures: docs/design.md,
 * "Memory of a large job". A copy of tools/dev/node-flags.json's streamingHeapGrowingPercent (the image holds no
 * tools/), which tools/dev/node-flags.spec.ts holds it to.
 */
export const STREAMING_HEAP_GROWING_PERCENT = 200;

/**
 * The whole `main` of a NATS service: loads its config, then starts its Nest context with a small HTTP listener
 * on HTTP_PORT for /health/* and /metrics. SIGTERM/SIGINT drain and stop it.
 */
export function runService<C extends BaseConfig & { HTTP_PORT: number }>(
  service: ServiceConfig<C>,
  module: (config: Readonly<C>) => DynamicModule,
  options: RunServiceOptions = {},
): void {
  const name = service.service;
  // A heuristic V8 reads whenever it sizes the heap after a full collection, so it may be set once running
  // (the command line would not do: NODE_OPTIONS, which the image and charts use, refuses this flag).
  if (options.heapGrowingPercent !== undefined) {
    setFlagsFromString(`--heap-growing-percent=${Math.round(options.heapGrowingPercent)}`);
  }
  runMain(name, async () => {
    const config = service.load();
    const app = await NestFactory.create(module(config), { logger: false, abortOnError: false });
    app.enableShutdownHooks();
    await app.listen(config.HTTP_PORT, '0.0.0.0');
    const address = app.getHttpServer().address() as { port: number };
    createLogger(name, config.LOG_LEVEL).info({ port: address.port }, `${name} started`);
  });
}
