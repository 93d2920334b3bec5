import type { DynamicModule } from '@nestjs/common';
import { serviceModule } from '@emailverify/service-kit';
import { VerificationEngine } from '@emailverify/verification';
import { verifierConfig, type VerifierConfig } from './config';
import { verifierDatabase } from './migrations';
import { CachePurge } from './verification/cache-purge';
import { ChunkWorker } from './verification/chunk-worker';
import { DomainFactsExchange } from './verification/domain-facts-exchange';
import { DomainReportService } from './verification/domain-report.service';
import { DomainReportsRepository } from './verification/domain-reports.repository';
import { MxLimiterHolder } from './verification/mx-limiter';
import { ResultsRepository } from './verification/results.repository';
import { SandboxService } from './verification/sandbox.service';
import { UsageRecorder } from './verification/usage-recorder';
import { VerificationService } from './verification/verification.service';
import { VerifierEngine } from './verification/verifier-engine';
import { VerifierHandler } from './verifier.handler';
import { VerifierMetrics } from './verifier.metrics';

/** The verifier: single and bulk verification over NATS, file chunks from JetStream. */
export function verifierModule(config: Readonly<VerifierConfig>): DynamicModule {
  return serviceModule(verifierConfig, config, {
    database: verifierDatabase,
    providers: [
      VerifierMetrics,
      MxLimiterHolder,
      { provide: VerificationEngine, useClass: VerifierEngine },
      DomainFactsExchange,
      ResultsRepository,
      VerificationService,
      SandboxService,
      UsageRecorder,
      DomainReportsRepository,
      DomainReportService,
      CachePurge,
      ChunkWorker,
      VerifierHandler,
    ],
  });
}
