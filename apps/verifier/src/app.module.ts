import type { DynamicModule } from '@nestjs/common';
import { JetStreamKit, MessageBus } from '@emailverify/messaging';
import {
  LOGGER,
  PER_REQUEST_LOG_HOLD_MS,
  periodicTask,
  serviceModule,
  withDataSource,
  withMetrics,
} from '@emailverify/service-kit';
import { VerificationEngine } from '@emailverify/verification';
import type { Logger } from 'pino';
import { engineOptions, type VerifierConfig } from './config';
import { MxLimiterHolder } from './verification/mx-limiter';
import { verifierMigrations } from './migrations';
import { ChunkWorker } from './verification/chunk-worker';
import { DomainFactsExchange } from './verification/domain-facts-exchange';
import { DomainReportService } from './verification/domain-report.service';
import { DomainReportsRepository } from './verification/domain-reports.repository';
import { ResultsRepository } from './verification/results.repository';
import { VerificationService } from './verification/verification.service';
import { VerifierHandler } from './verifier.handler';
import { VerifierMetrics } from './verifier.metrics';

/** The verifier: single and bulk verification over NATS, file chunks from JetStream. */
export function verifierModule(config: Readonly<VerifierConfig>): DynamicModule {
  return serviceModule('verifier', config, {
    database: { schema: 'verifier', migrations: verifierMigrations },
    logHoldMs: PER_REQUEST_LOG_HOLD_MS,
    providers: [
      withMetrics(VerifierMetrics),
      {
        provide: MxLimiterHolder,
        inject: [LOGGER],
        useFactory: (logger: Logger) => new MxLimiterHolder(config, logger),
      },
      {
        provide: VerificationEngine,
        inject: [VerifierMetrics, MxLimiterHolder],
        useFactory: (metrics: VerifierMetrics, limiter: MxLimiterHolder) =>
          new VerificationEngine(engineOptions(config), { limiter: limiter.limiter }, metrics.observer()),
      },
      {
        provide: DomainFactsExchange,
        inject: [MessageBus, VerificationEngine, VerifierMetrics],
        useFactory: (bus: MessageBus, engine: VerificationEngine, metrics: VerifierMetrics) =>
          new DomainFactsExchange(
            bus,
            engine,
            { holdMs: 10, maxFacts: 500, enabled: config.SHARE_DOMAIN_FACTS },
            metrics.sharedDomainFacts,
          ),
      },
      withDataSource(ResultsRepository),
      {
        provide: VerificationService,
        inject: [VerificationEngine, ResultsRepository, MessageBus, LOGGER, VerifierMetrics],
        useFactory: (
          engine: VerificationEngine,
          results: ResultsRepository,
          bus: MessageBus,
          logger: Logger,
          metrics: VerifierMetrics,
        ) =>
          new VerificationService(
            engine,
            results,
            bus,
            logger,
            {
              cacheTtlHours: config.RESULT_CACHE_TTL_HOURS,
              bulkMax: config.BULK_MAX_EMAILS,
              creditHoldSeconds: config.CREDIT_HOLD_SECONDS,
              bulkConcurrency: config.VERIFY_BULK_CONCURRENCY,
              chunkConcurrency: config.FILE_VERIFY_CONCURRENCY,
            },
            metrics.outcomes,
          ),
      },
      withDataSource(DomainReportsRepository),
      {
        provide: DomainReportService,
        inject: [VerificationEngine, DomainReportsRepository, MessageBus, LOGGER],
        useFactory: (
          engine: VerificationEngine,
          reports: DomainReportsRepository,
          bus: MessageBus,
          logger: Logger,
        ) =>
          new DomainReportService(engine, reports, bus, logger, {
            cacheTtlHours: config.RESULT_CACHE_TTL_HOURS,
            creditHoldSeconds: config.CREDIT_HOLD_SECONDS,
          }),
      },
      // Expired cache rows are never served; purging them hourly only keeps the tables small.
      periodicTask({
        provide: 'CachePurge',
        name: 'cache purge',
        intervalMs: 3_600_000,
        inject: [ResultsRepository, DomainReportsRepository],
        run: async (results: ResultsRepository, reports: DomainReportsRepository) =>
          (await results.purgeExpired()) + (await reports.purgeExpired()),
      }),
      {
        provide: ChunkWorker,
        inject: [JetStreamKit, VerificationService, VerifierMetrics, LOGGER],
        useFactory: (
          kit: JetStreamKit,
          verification: VerificationService,
          metrics: VerifierMetrics,
          logger: Logger,
        ) =>
          new ChunkWorker(
            kit,
            verification,
            {
              concurrency: config.FILE_CHUNK_CONCURRENCY,
              maxDeliveries: config.FILE_CHUNK_MAX_DELIVERIES,
              ackWaitMs: config.FILE_CHUNK_ACK_WAIT_MS,
            },
            metrics.chunks,
            logger,
          ),
      },
      VerifierHandler,
    ],
  });
}
