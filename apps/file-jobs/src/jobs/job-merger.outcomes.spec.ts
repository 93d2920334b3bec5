import {
  EventSubjects,
  type FileEvent,
  type RpcReply,
  type RpcRequest,
  type RpcSubject,
  type SettleRequest,
  type UsageRecordRequest,
  Subjects,
} from '@emailverify/contracts';
import type { JetStreamKit, MessageBus } from '@emailverify/messaging';
import { Metrics, verifyDownload } from '@emailverify/service-kit';
import type { ObjectStore } from '@nats-io/obj';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fileJobsConfigSchema } from '../config';
import { FileJobsMetrics } from '../file-jobs.metrics';
import { JobMerger } from './job-merger';
import type { JobRow, JobsRepository } from './jobs.repository';
import { makeJobRow } from './job-row.fixture';
import type { ResultWriter } from './result-writer';

// What a customer sees of a job's end, decided by JobMerger (job-merger.spec.ts covers the merge's course:
// leases, following, giving up): what is charged, the final status, and the event their webhooks receive.

const SECRET = 'merger-outcomes-download-secret';
const BASE = 'https://api.example.com';
const config = fileJobsConfigSchema.parse({ DOWNLOAD_SIGNING_SECRET: SECRET, PUBLIC_BASE_URL: BASE });
const JOB_ID = '6f1c2b4e-0000-4000-8000-000000000001';

function makeJob(overrides: Partial<JobRow> = {}): JobRow {
  return makeJobRow({
    id: JOB_ID,
    total_rows: 12,
    estimated_count: 12,
    unique_emails: 10,
    billable_emails: 10,
    total_chunks: 5,
    completed_chunks: 5,
    processed_emails: 10,
    valid_emails: 6,
    invalid_emails: 2,
    unknown_emails: 1,
    disposable_emails: 1,
    role_emails: 1,
    reservation_key: `file:${JOB_ID}`,
    started_at: new Date('2026-01-01T00:00:10Z'),
    ...overrides,
  });
}

type RepoMethods =
  | 'claimMerge'
  | 'renewMerge'
  | 'releaseMerge'
  | 'findByIdInternal'
  | 'creditsUsed'
  | 'markSettled'
  | 'markEventPublished'
  | 'transitionInternal';

interface Options {
  /** Credits the job's verified chunks used. */
  used?: number;
  write?: ResultWriter['write'];
  /** Runs when the job is moved to merging (something else happening to it meanwhile). */
  whileMerging?: (job: { status: JobRow['status'] }) => void;
}

/** A merger over one in-memory job; records the settlement, the events published and the files deleted. */
function setup(initial: JobRow, options: Options = {}) {
  let job = initial;
  const settled: SettleRequest[] = [];
  const usage: UsageRecordRequest[] = [];
  const events: Array<{ subject: string; event: FileEvent; msgId?: string }> = [];
  const deleted: string[] = [];
  const repo: Pick<JobsRepository, RepoMethods> = {
    claimMerge: async () => job,
    renewMerge: async () => true,
    releaseMerge: async () => undefined,
    findByIdInternal: async () => job,
    creditsUsed: async () => options.used ?? 10,
    markSettled: async () => void (job = { ...job, settled: true }),
    markEventPublished: async () => undefined,
    transitionInternal: async (_id, from, to, extra) => {
      if (!from.includes(job.status)) return undefined;
      job = {
        ...job,
        status: to,
        result_object: extra?.resultObject ?? job.result_object,
        credits_used: extra?.creditsUsed ?? job.credits_used,
        error_code: extra?.error?.code ?? job.error_code,
        error_message: extra?.error?.message ?? job.error_message,
        completed_at: extra?.completedAt ? new Date('2026-01-01T00:01:10Z') : job.completed_at,
      };
      if (to === 'merging') {
        const change = { status: job.status };
        options.whileMerging?.(change);
        job = { ...job, status: change.status };
      }
      return job;
    },
  };
  const bus: Pick<MessageBus, 'request' | 'publish'> = {
    request: async <S extends RpcSubject>(subject: S, payload: RpcRequest<S>): Promise<RpcReply<S>> => {
      if (subject === Subjects.creditsUsageRecord) {
        usage.push(payload as UsageRecordRequest);
        return { recorded: true } as RpcReply<S>;
      }
      expect(subject).toBe(Subjects.creditsSettle);
      const settle = payload as SettleRequest;
      settled.push(settle);
      const reply: RpcReply<typeof Subjects.creditsSettle> = {
        reservationId: 'r',
        used: settle.used,
        refunded: job.billable_emails - settle.used,
        balance: 0,
        replayed: false,
      };
      return reply as RpcReply<S>;
    },
    publish: () => undefined,
  };
  const store: Pick<ObjectStore, 'delete'> = {
    delete: async (name) => {
      deleted.push(name);
      return { success: true, purged: 1 };
    },
  };
  const kit: Pick<JetStreamKit, 'publish' | 'objectStore'> = {
    publish: async (subject, payload, msgId) => {
      events.push({ subject, event: payload as FileEvent, msgId });
      return { duplicate: false, seq: events.length };
    },
    objectStore: async () => store as ObjectStore,
  };
  const writer: Pick<ResultWriter, 'write'> = {
    write: options.write ?? (async () => `results/${JOB_ID}.csv`),
  };
  const merger = new JobMerger(
    repo as JobsRepository,
    bus as MessageBus,
    kit as JetStreamKit,
    writer as ResultWriter,
    config,
    pino({ level: 'silent' }),
    new FileJobsMetrics(new Metrics('file-jobs')),
  );
  return {
    finish: () => merger.finish(initial, new AbortController().signal),
    settled,
    usage,
    events,
    deleted,
    get job() {
      return job;
    },
  };
}

describe('JobMerger: what a job ends with', () => {
  it('charges what was verified, refunds the rest, and completes the job with its file', async () => {
    const counts = {
      valid_emails: 5,
      invalid_emails: 1,
      unknown_emails: 0,
      risky_emails: 0,
      disposable_emails: 0,
      catchall_emails: 1,
      role_emails: 0,
    };
    const t = setup(makeJob(counts), { used: 7 });
    await t.finish();
    expect(t.settled).toEqual([
      { accountId: makeJob().account_id, idempotencyKey: `file:${JOB_ID}`, used: 7 },
    ]);
    // The results by status go to the account's usage once, under the job's key.
    const accountId = makeJob().account_id;
    expect(t.usage).toEqual([
      {
        key: `file:${JOB_ID}`,
        entries: [
          { accountId, mode: 'live', status: 'valid', count: 5 },
          { accountId, mode: 'live', status: 'invalid', count: 1 },
          { accountId, mode: 'live', status: 'catchall', count: 1 },
        ],
      },
    ]);
    expect(t.job).toMatchObject({
      status: 'completed',
      settled: true,
      credits_used: 7,
      result_object: `results/${JOB_ID}.csv`,
    });
  });

  it('completes with a warning when chunks failed (their addresses unknown and free)', async () => {
    const t = setup(makeJob({ completed_chunks: 4, failed_chunks: 1 }), { used: 8 });
    await t.finish();
    expect(t.job.status).toBe('completed_with_warning');
    expect(t.settled.map((s) => s.used)).toEqual([8]);
  });

  it('tells the webhooks file.completed with the counts, the charge and working download links', async () => {
    const t = setup(makeJob(), { used: 9 });
    await t.finish();
    expect(t.events).toHaveLength(1);
    const [{ subject, event, msgId }] = t.events as [(typeof t.events)[0]];
    expect(subject).toBe(EventSubjects.completed);
    expect(msgId).toBe(`${JOB_ID}:file.completed`);
    expect(event).toMatchObject({
      event: 'file.completed',
      timestamp: '2026-01-01T00:01:10.000Z',
      data: {
        job_id: JOB_ID,
        file_name: 'leads.csv',
        total_emails: 10,
        valid_emails: 6,
        invalid_emails: 2,
        role_emails: 1,
        unknown_emails: 1,
        disposable_emails: 1,
        credits_used: 9,
        process_time_seconds: 60,
        download_url: `${BASE}/v1/verify/file/${JOB_ID}/results`,
      },
    });
    if (event.event !== 'file.completed') throw new Error('not file.completed');
    const link = new URL(event.data.direct_download_url);
    expect(link.pathname).toBe(`/v1/verify/file/${JOB_ID}/download`);
    const expires = link.searchParams.get('expires')!;
    expect(verifyDownload(config, JOB_ID, expires, link.searchParams.get('signature')!)).toBe('ok');
    expect(event.data.direct_download_expires_at).toBe(new Date(Number(expires) * 1000).toISOString());
  });

  it('fails a job whose file cannot be built, charging what was verified, and says so in file.failed', async () => {
    const t = setup(makeJob(), {
      used: 10,
      write: async () => {
        throw new Error('job 1: the file held 9 addresses, the job 10');
      },
    });
    await t.finish();
    expect(t.job).toMatchObject({ status: 'failed', error_code: 'MERGE_FAILED', credits_used: 10 });
    expect(t.settled.map((s) => s.used)).toEqual([10]);
    expect(t.events.map((e) => [e.subject, e.event.event])).toEqual([[EventSubjects.failed, 'file.failed']]);
    expect(t.events[0]!.event.data).toMatchObject({
      job_id: JOB_ID,
      status: 'failed',
      error: { code: 'MERGE_FAILED', message: 'The result file could not be built' },
      total_emails: 10,
      processed_emails: 10,
      credits_used: 10,
    });
  });

  it('leaves a job cancelled while its file was written cancelled, deletes the file and tells nobody', async () => {
    const t = setup(makeJob(), { whileMerging: (job) => (job.status = 'cancelled') });
    await t.finish();
    expect(t.job.status).toBe('cancelled');
    expect(t.deleted).toEqual([`results/${JOB_ID}.csv`]);
    expect(t.events).toEqual([]);
  });

  it('does nothing to a job that has already ended', async () => {
    const t = setup(makeJob({ status: 'completed' }));
    await t.finish();
    expect([t.settled, t.events, t.deleted]).toEqual([[], [], []]);
  });
});
