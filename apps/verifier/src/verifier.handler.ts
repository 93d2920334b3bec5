import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import type { DataSource } from '@emailverify/persistence';
import { LOGGER, Metrics, SERVICE_DATA_SOURCE, serveRoutes } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { ChunkWorker } from './verification/chunk-worker';
import { VerificationService } from './verification/verification.service';
import { VerifierPayloads as P } from './verifier.schemas';

/** NATS entry points of the verifier: each one line into the service. */
@Injectable()
export class VerifierHandler implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly bus: MessageBus,
    private readonly verification: VerificationService,
    private readonly chunks: ChunkWorker,
    @Inject(SERVICE_DATA_SOURCE) private readonly db: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.chunks.start();
    const v = this.verification;
    serveRoutes(
      this.bus,
      QueueGroups.verifier,
      {
        [Subjects.verifySingle]: { parse: P.single, handle: (r, ctx) => v.verifySingle(r, ctx.requestId) },
        [Subjects.verifyBulk]: { parse: P.bulk, handle: (r, ctx) => v.verifyBulk(r, ctx.requestId) },
        [Subjects.verifierPing]: { parse: P.ping, handle: () => this.ping() },
      },
      this.logger,
      this.metrics,
    );
  }

  /** Finishes (or hands back) the chunks in hand before the bus drains. */
  async onApplicationShutdown(): Promise<void> {
    await this.chunks.stop();
  }

  private async ping(): Promise<{ service: string; ok: boolean }> {
    await this.db.query('SELECT 1');
    return { service: 'verifier', ok: true };
  }
}
