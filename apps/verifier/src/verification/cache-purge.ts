import { periodicTask } from '@emailverify/service-kit';
import { DomainReportsRepository } from './domain-reports.repository';
import { ResultsRepository } from './results.repository';

/** Expired cache rows are never served; purging them hourly only keeps the tables small. */
const PURGE_INTERVAL_MS = 3_600_000;

export const CachePurge = periodicTask(
  'cache purge',
  [ResultsRepository, DomainReportsRepository],
  (results: ResultsRepository, reports: DomainReportsRepository) => ({
    intervalMs: PURGE_INTERVAL_MS,
    run: async () => void ((await results.purgeExpired()) + (await reports.purgeExpired())),
  }),
);
