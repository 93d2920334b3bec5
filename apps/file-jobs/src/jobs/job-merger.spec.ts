import type { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { Metrics } from '@emailverify/service-kit';
import { errors } from '@nats-io/transport-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fileJobsConfigSchema } from '../config';
import { FileJobsMetrics } from '../file-jobs.metrics';
import { JobMerger } from './job-merger';
import type { JobRow, JobsRepository, TransitionExtra } from './jobs.repository';
import { makeJobRow } from './job-row.fixture';
import { MergeAbandoned, type ResultWriter } from './result-writer';

function makeJob(overrides: Partial<JobRow> = {}): JobRow {
  return makeJobRow(overrides);
}

/** A merger over an in-memory job, recording what it did. */
function setup(write: ResultWriter['write'], initial: Partial<JobRow> = {}) {
  let job = makeJob(initial);
  const did: string[] = [];
  /** Subjects of the requests sent (credits), and the events published. */
  const requested: string[] = [];
  const published: unknown[] = [];
  const repo = {
    claimMerge: async () => job,
    renewMerge: async () => true,
    releaseMerge: async () => undefined,
    findByIdInternal: async () => job,
    creditsUsed: async () => 2,
    markSettled: async () => void did.push('settled'),
    markEventPublished: async (_id: string, event: string) => void did.push(`published ${event}`),
    transitionInternal: async (
      _id: string,
      from: readonly string[],
      to: JobRow['status'],
      extra?: TransitionExtra,
    ) => {
      if (!from.includes(job.status)) return undefined;
      job = { ...job, status: to, result_object: extra?.resultObject ?? job.result_object };
      did.push(to);
      return job;
    },
  };
  /** The usage records sent. */
  const usage: unknown[] = [];
  const bus = {
    request: async (subject: string, payload: unknown) => {
      requested.push(subject);
      if (subject === 'credits.usage.record') usage.push(payload);
    },
    publish: () => undefined,
  };
  const kit = {
    publish: async (_subject: string, event: unknown) => void published.push(event),
    objectStore: async () => ({ delete: async (name: string) => void did.push(`deleted ${name}`) }),
  };
  const merger = new JobMerger(
    repo as unknown as JobsRepository,
    bus as unknown as MessageBus,
    kit as unknown as JetStreamKit,
    { write } as ResultWriter,
    fileJobsConfigSchema.parse({ DOWNLOAD_SIGNING_SECRET: 'merger-spec-download-secret' }),
    pino({ level: 'silent' }),
    new FileJobsMetrics(new Metrics('file-jobs')),
  );
  return {
    merger,
    did,
    requested,
    published,
    usage,
    get job() {
      return job;
    },
    set status(status: JobRow['status']) {
      job = { ...job, status };
    },
  };
}

describe('JobMerger', () => {
  it('finishes a job: merging, the file, settled, completed, its event published', async () => {
    const t = setup(async () => 'results/1.csv');
    await t.merger.finish(makeJob(), new AbortController().signal);
    expect(t.did).toEqual(['merging', 'settled', 'completed', 'published file.completed']);
    expect(t.job).toMatchObject({ status: 'completed', result_object: 'results/1.csv' });
  });

  it('finishing: gives up storing nothing when the process stops, leaving the job merging', async () => {
    const stop = new AbortController();
    const t = setup(async (job, options) => {
      stop.abort();
      if (options?.signal?.aborted) throw new MergeAbandoned(job.id);
      return 'results/1.csv';
    });
    await t.merger.finish(makeJob(), stop.signal);
    expect(t.did).toEqual(['merging']);
    expect(t.job).toMatchObject({ status: 'merging', result_object: null });
  });

  it('following a job: completes it with the file written while it was verified', async () => {
    let writes = 0;
    const t = setup(async (_job, follow) => {
      writes += 1;
      expect(follow).toBeDefined();
      return 'results/1.csv';
    });
    await t.merger.followAndFinish(makeJob(), new AbortController().signal);
    expect(writes).toBe(1);
    expect(t.did).toEqual(['merging', 'settled', 'completed', 'published file.completed']);
  });

  it('following a job that stopped meanwhile: writes nothing and leaves the job alone', async () => {
    const t = setup(async () => 'never');
    t.status = 'paused';
    await t.merger.followAndFinish(makeJob(), new AbortController().signal);
    const abandoned = setup(async (job) => {
      throw new MergeAbandoned(job.id);
    });
    await abandoned.merger.followAndFinish(makeJob(), new AbortController().signal);
    expect([t.did, abandoned.did]).toEqual([[], []]);
  });

  it('following: gives up when the process stops, and a file for a job finished elsewhere is deleted', async () => {
    const stop = new AbortController();
    const t = setup(async (_job, follow) => {
      stop.abort();
      return (await follow!.follow!.active()) ? 'results/1.csv' : Promise.reject(new MergeAbandoned('1'));
    });
    await t.merger.followAndFinish(makeJob(), stop.signal);
    expect(t.did).toEqual([]);

    const other = setup(async () => {
      other.status = 'completed'; // another replica completed the job meanwhile
      return 'results/1.csv';
    });
    await other.merger.followAndFinish(makeJob(), new AbortController().signal);
    expect(other.did).toEqual(['deleted results/1.csv']);
  });

  it('leaves a job merging when NATS or PostgreSQL was away, for the next pass to merge again', async () => {
    const nats = setup(async () => {
      throw new Error('CsvWriter: the stream was aborted', { cause: new errors.TimeoutError() });
    });
    await nats.merger.finish(makeJob(), new AbortController().signal);
    const postgres = setup(async () => {
      throw Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      });
    });
    await postgres.merger.finish(makeJob(), new AbortController().signal);
    expect([nats.did, postgres.did]).toEqual([['merging'], ['merging']]);
    expect([nats.job.status, postgres.job.status]).toEqual(['merging', 'merging']);
  });

  it('fails a job whose file cannot be written, and publishes file.failed', async () => {
    const t = setup(async () => {
      throw new Error('job 1: the file held 3 addresses, the job 4');
    });
    await t.merger.finish(makeJob(), new AbortController().signal);
    expect(t.did).toEqual(['merging', 'settled', 'failed', 'published file.failed']);
    expect(t.job.status).toBe('failed');
  });

  it('finishes a sandbox job without settling credits (it reserved none); its event says sandbox', async () => {
    const live = setup(async () => 'results/1.csv');
    await live.merger.finish(makeJob(), new AbortController().signal);
    expect(live.requested).toEqual(['credits.reservation.settle', 'credits.usage.record']);
    expect(live.published).toEqual([expect.not.objectContaining({ sandbox: expect.anything() })]);

    const sandbox = setup(async () => 'results/1.csv', { mode: 'sandbox' });
    await sandbox.merger.finish(makeJob({ mode: 'sandbox' }), new AbortController().signal);
    expect(sandbox.did).toEqual(['merging', 'settled', 'completed', 'published file.completed']);
    // Its results still count in the account's usage (as sandbox verifications).
    expect(sandbox.requested).toEqual(['credits.usage.record']);
    expect(sandbox.usage).toEqual([
      { key: expect.stringMatching(/^file:/), entries: [expect.objectContaining({ mode: 'sandbox' })] },
    ]);
    expect(sandbox.published).toEqual([
      expect.objectContaining({ event: 'file.completed', sandbox: true, data: expect.any(Object) }),
    ]);
  });

  it('fails a sandbox job without settling credits, and its file.failed says sandbox', async () => {
    const t = setup(
      async () => {
        throw new Error('job 1: the file held 3 addresses, the job 4');
      },
      { mode: 'sandbox' },
    );
    await t.merger.finish(makeJob({ mode: 'sandbox' }), new AbortController().signal);
    expect(t.requested).not.toContain('credits.reservation.settle');
    expect(t.published).toEqual([expect.objectContaining({ event: 'file.failed', sandbox: true })]);
  });
});
