import { type DynamicModule, Module, type ModuleMetadata, type Provider } from '@nestjs/common';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { type DataSource, type MigrationClass, openSchemaDataSource, Sql } from '@emailverify/persistence';
import type { Logger } from 'pino';
import type { BaseConfig, ServiceConfig } from './config';
import { RouteServer } from './handlers';
import type { HealthCheck } from './health';
import { createLogger } from './logger';
import { Metrics } from './metrics';
import { HEALTH_CHECKS, LOGGER, ObservabilityModule, SHUTDOWN_HOOKS } from './nest';
import { periodicTask } from './periodic';

/** How often consumer lag is sampled: well inside a usual scrape interval, and one small request per consumer. */
const CONSUMER_LAG_SAMPLE_MS = 5_000;
/** TypeORM's data source of the service's own schema (pool and migrations); null in a service without one. */
export const SERVICE_DATA_SOURCE = Symbol('SERVICE_DATA_SOURCE');

/** The lag of the JetStream consumers this process works (emailverify_jetstream_consumer_*), one request each. */
const ConsumerLagSampler = periodicTask(
  'consumer lag sample',
  [JetStreamKit, Metrics],
  (kit: JetStreamKit, metrics: Metrics) => ({
    intervalMs: CONSUMER_LAG_SAMPLE_MS,
    run: async () => metrics.recordConsumerLag(await kit.consumerLag()),
  }),
);

/** The schema a service owns and the migrations that create what is in it (their SQL names the schema). */
export interface ServiceDatabase {
  schema: string;
  migrations: MigrationClass[];
}

export interface ServiceProviderOptions {
  service: string;
  config: Readonly<BaseConfig>;
  /** Omitted for services without a database (gateway). */
  database?: ServiceDatabase;
  /** Further readiness checks (e.g. other services answering over NATS). */
  extraChecks?: (bus: MessageBus) => HealthCheck[];
}

/**
 * The providers every app needs: logger, metrics, the NATS bus and JetStream on it, its own data source
 * (migrated at start) and the `Sql` over it, the server of its NATS routes, readiness checks and shutdown in the
 * right order (stop taking messages, then close the pool).
 */
export function serviceProviders(options: ServiceProviderOptions): Provider[] {
  const { service, config } = options;
  const providers: Provider[] = [
    { provide: LOGGER, useValue: createLogger(service, config.LOG_LEVEL) },
    { provide: Metrics, useValue: new Metrics(service) },
    {
      provide: MessageBus,
      inject: [Metrics],
      useFactory: (metrics: Metrics) =>
        MessageBus.connect({
          url: config.NATS_URL,
          user: config.NATS_USER,
          pass: config.NATS_PASSWORD,
          namespace: config.NATS_NAMESPACE,
          name: `${service}:${process.pid}`,
          requestTimeoutMs: config.NATS_REQUEST_TIMEOUT_MS,
          streamReplicas: config.NATS_STREAM_REPLICAS,
          onRequestDone: (subject, outcome, seconds) =>
            metrics.natsLatency('made').observe({ subject, outcome }, seconds),
        }),
    },
    { provide: JetStreamKit, inject: [MessageBus], useFactory: (bus: MessageBus) => new JetStreamKit(bus) },
    ConsumerLagSampler,
  ];
  const db = options.database;
  if (db) {
    providers.push({
      provide: SERVICE_DATA_SOURCE,
      useFactory: () =>
        openSchemaDataSource({
          url: config.DATABASE_URL,
          schema: db.schema,
          migrations: db.migrations,
          poolSize: config.DATABASE_POOL_SIZE,
          poolTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS,
          applicationName: service,
        }),
    });
    providers.push({
      provide: Sql,
      inject: [SERVICE_DATA_SOURCE],
      useFactory: (dataSource: DataSource) => new Sql(dataSource),
    });
  } else {
    providers.push({ provide: SERVICE_DATA_SOURCE, useValue: null });
  }
  providers.push(
    {
      provide: RouteServer,
      inject: [MessageBus, SERVICE_DATA_SOURCE, LOGGER, Metrics],
      useFactory: (bus: MessageBus, dataSource: DataSource | null, logger: Logger, metrics: Metrics) =>
        new RouteServer(bus, service, dataSource, logger, metrics),
    },
    {
      provide: HEALTH_CHECKS,
      inject: [MessageBus, SERVICE_DATA_SOURCE],
      useFactory: (bus: MessageBus, dataSource: DataSource | null): HealthCheck[] => [
        {
          name: 'nats',
          check: async () => {
            if (!bus.isConnected()) throw new Error('not connected');
            await bus.connection.flush();
          },
        },
        ...(dataSource
          ? [{ name: 'postgres', check: async () => void (await dataSource.query('SELECT 1')) }]
          : []),
        ...(options.extraChecks?.(bus) ?? []),
      ],
    },
    {
      provide: SHUTDOWN_HOOKS,
      inject: [MessageBus, SERVICE_DATA_SOURCE],
      useFactory: (bus: MessageBus, dataSource: DataSource | null) => [
        async () => bus.close(),
        async () => {
          if (dataSource?.isInitialized) await dataSource.destroy();
        },
      ],
    },
  );
  return providers;
}

export interface ServiceModuleParts extends Omit<ServiceProviderOptions, 'service' | 'config'> {
  imports?: ModuleMetadata['imports'];
  controllers?: ModuleMetadata['controllers'];
  /** The app's own providers; the shared ones are global and need not be listed. */
  providers: Provider[];
}

/** The root of every app; what makes one app differ is in the DynamicModule built on it. */
@Module({})
class ServiceRootModule {}

/**
 * An app's root module: the providers every app shares (`serviceProviders`, made global), its config under the
 * token of its ServiceConfig, and what the app states as its own.
 */
export function serviceModule<C extends BaseConfig>(
  service: ServiceConfig<C>,
  config: Readonly<C>,
  parts: ServiceModuleParts,
): DynamicModule {
  const { imports = [], controllers = [], providers, ...shared } = parts;
  const name = service.service;
  const token = service.token;
  const configProvider = { provide: token, useValue: config };
  return {
    module: ServiceRootModule,
    imports: [
      ...imports,
      ObservabilityModule.forRoot({
        providers: [configProvider, ...serviceProviders({ service: name, config, ...shared })],
      }),
    ],
    controllers,
    providers,
  };
}
