import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type BilledDomainReport, Subjects, type VerifyDomainRequest } from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { LOGGER } from '@emailverify/service-kit';
import { assertValidDomain, VerificationEngine } from '@emailverify/verification';
import type { Logger } from 'pino';
import { VERIFIER_CONFIG, type VerifierConfig } from '../config';
import { domainCreditsFor } from './billing';
import { DomainReportsRepository } from './domain-reports.repository';

type Credits = Pick<MessageBus, 'request'>;

/**
 * Domain reports with their cache and billing, as single verification has them: a cached report is free; a fresh
 * one reserves its credit before any work (a short balance means nothing is looked up) and settles what
 * `domainCreditsFor` says.
 */
@Injectable()
export class DomainReportService {
  constructor(
    private readonly engine: VerificationEngine,
    private readonly reports: DomainReportsRepository,
    @Inject(MessageBus) private readonly credits: Credits,
    @Inject(LOGGER) private readonly logger: Pick<Logger, 'warn'>,
    @Inject(VERIFIER_CONFIG) private readonly config: Readonly<VerifierConfig>,
  ) {}

  async verifyDomain(req: VerifyDomainRequest, requestId: string): Promise<BilledDomainReport> {
    const domain = assertValidDomain(req.domain);
    const cached = await this.reports.findFresh(domain, req.checkSmtp);
    if (cached) return { ...cached, creditsUsed: 0, cached: true };

    const idempotencyKey = `domain:${requestId}:${randomUUID()}`;
    const settle = (used: number) =>
      this.credits.request(Subjects.creditsSettle, { accountId: req.accountId, idempotencyKey, used });
    await this.credits.request(Subjects.creditsReserve, {
      accountId: req.accountId,
      idempotencyKey,
      amount: 1,
      // How long the credit stays reserved if this process dies before settling.
      holdSeconds: this.config.CREDIT_HOLD_SECONDS,
    });
    let report;
    try {
      report = await this.engine.verifyDomain(domain, { checkSmtp: req.checkSmtp });
    } catch (err) {
      await settle(0);
      throw err;
    }
    const used = domainCreditsFor(report, req.checkSmtp);
    await settle(used);
    // Stored before the reply, so the caller's next request is answered from the cache.
    if (used > 0) {
      await this.reports
        .save(report, req.checkSmtp, this.config.RESULT_CACHE_TTL_HOURS)
        .catch((err: unknown) =>
          this.logger.warn(
            { err },
            'storing a domain report in the cache failed; it is looked up again when asked for',
          ),
        );
    }
    return { ...report, creditsUsed: used, cached: false };
  }
}
