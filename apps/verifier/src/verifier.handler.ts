import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { QueueGroups, Subjects } from '@emailverify/contracts';
import { RouteServer } from '@emailverify/service-kit';
import { ChunkWorker } from './verification/chunk-worker';
import { DomainFactsExchange } from './verification/domain-facts-exchange';
import { DomainReportService } from './verification/domain-report.service';
import { SandboxService } from './verification/sandbox.service';
import { UsageRecorder } from './verification/usage-recorder';
import { VerificationService } from './verification/verification.service';
import { VerifierPayloads as P } from './verifier.schemas';

/** NATS entry points of the verifier: each one line into the service. */
@Injectable()
export class VerifierHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly server: RouteServer,
    private readonly verification: VerificationService,
    private readonly chunks: ChunkWorker,
    private readonly domains: DomainReportService,
    private readonly domainFacts: DomainFactsExchange,
    private readonly sandbox: SandboxService,
    private readonly usage: UsageRecorder,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.domainFacts.start();
    await this.chunks.start();
    const v = this.verification;
    // A sandbox key's request goes to the sandbox alone: no engine, cache or credits on its way. Either way
    // its results count in the account's usage, under the key's mode.
    const sandbox = this.sandbox;
    const usage = this.usage;
    this.server.serveRoutes(QueueGroups.verifier, Subjects.verifierPing, {
      [Subjects.verifySingle]: {
        parse: P.single,
        handle: async (r, ctx) => {
          const result = r.sandbox ? sandbox.single(r) : await v.verifySingle(r, ctx.requestId);
          usage.count(r.accountId, r.sandbox ? 'sandbox' : 'live', [result]);
          return result;
        },
      },
      [Subjects.verifyBulk]: {
        parse: P.bulk,
        handle: async (r, ctx) => {
          const reply = r.sandbox ? sandbox.bulk(r) : await v.verifyBulk(r, ctx.requestId);
          usage.count(r.accountId, r.sandbox ? 'sandbox' : 'live', reply.results);
          return reply;
        },
      },
      [Subjects.verifyDomain]: {
        parse: P.domain,
        handle: async (r, ctx) =>
          r.sandbox ? sandbox.domain(r) : this.domains.verifyDomain(r, ctx.requestId),
      },
    });
  }

  /**
   * First thing at shutdown, while the bus is still open: the chunks in hand go back to the queue, and the
   * settlements, result stores and usage records under way finish.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.chunks.stop(), this.verification.drain()]);
    await this.usage.drain();
    this.domainFacts.stop();
  }
}
