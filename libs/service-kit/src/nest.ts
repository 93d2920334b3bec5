import 'reflect-metadata';
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
import type { Response } from 'express';
import type { Logger } from 'pino';
import { type HealthCheck, runHealthChecks } from './health';
import { Metrics } from './metrics';

export const HEALTH_CHECKS = Symbol('HEALTH_CHECKS');
export const LOGGER = Symbol('LOGGER');
/** Closers run in order at shutdown: drain the bus first, then close pools. */
export const SHUTDOWN_HOOKS = Symbol('SHUTDOWN_HOOKS');

export type ShutdownHook = () => Promise<void>;

/** Marks a route that needs no API key (health, metrics, docs). */
export const IS_PUBLIC = 'emailverify:public';
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

@Public()
@Controller()
export class ObservabilityController {
  constructor(
    @Inject(HEALTH_CHECKS) private readonly checks: HealthCheck[],
    private readonly metrics: Metrics,
  ) {}

  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res() res: Response): Promise<void> {
    const report = await runHealthChecks(this.checks);
    res.status(report.status === 'ok' ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE).json(report);
  }

  @Get('metrics')
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
 * Starts a NATS service: its Nest context plus a small HTTP listener for /health/* and /metrics.
 * Returns once listening; SIGTERM/SIGINT drain and stop it.
 */
export async function startService(options: {
  name: string;
  module: Parameters<typeof NestFactory.create>[0];
  port: number;
  host?: string;
  logger: Logger;
}): Promise<{ close(): Promise<void>; port: number }> {
  const app = await NestFactory.create(options.module, { logger: false, abortOnError: false });
  app.enableShutdownHooks();
  await app.listen(options.port, options.host ?? '0.0.0.0');
  const address = app.getHttpServer().address() as { port: number };
  options.logger.info({ port: address.port }, `${options.name} started`);
  return { close: () => app.close(), port: address.port };
}
