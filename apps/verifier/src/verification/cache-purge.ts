import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, PeriodicTask } from '@emailverify/service-kit';
import type { Logger } from 'pino';
import { DomainReportsRepository } from './domain-reports.repository';
import { ResultsRepository } from './results.repository';

/** Expired cache rows are never served; purging them hourly only keeps the tables small. */
const PURGE_INTERVAL_MS = 3_600_000;

@Injectable()
export class CachePurge extends PeriodicTask {
  constructor(results: ResultsRepository, reports: DomainReportsRepository, @Inject(LOGGER) logger: Logger) {
    super(
      'cache purge',
      PURGE_INTERVAL_MS,
      async () => void ((await results.purgeExpired()) + (await reports.purgeExpired())),
      logger,
    );
  }
}
