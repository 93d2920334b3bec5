import {
  type AccountId,
  type ChunkMessage,
  type ChunkResultMessage,
  chunkMessageId,
  chunkSubject,
  type JobStatusBroadcast,
  jobStatusSubject,
  type PackedChunkResults,
} from '@emailverify/contracts';
import type { JetStreamKit, JsDelivery, MessageBus } from '@emailverify/messaging';
import { Metrics } from '@emailverify/service-kit';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { fileJobsConfigSchema } from '../config';
import { FileJobsMetrics } from '../file-jobs.metrics';
import type { GreylistRetries } from '../greylist/greylist-retries';
import type { JobMerger } from './job-merger';
import { JobRunner } from './job-runner';
import type { ChunksRepository, WaitingPlan } from './chunks.repository';
import type { JobRow, JobsRepository } from './jobs.repository';
import { makeJobRow } from './job-row.fixture';

// JobRunner's decisions over in-memory stand-ins: when a job starts, how many of its chunks are out at once and
// when more go, when it is handed to the merger (following early, or finishing), how many merges run at once,
// and what a restarted process picks up. Chunk results arrive through the stand-in consumer as JetStream would
// hand them over; the merger is a stand-in whose merges end when the test says.

const ACCOUNT = '6f1c2b4e-0000-4000-8000-0000000000aa' as AccountId;
const WINDOW = 8;
let jobCount = 0;

function makeJob(overrides: Partial<JobRow> = {}): JobRow {
  jobCount += 1;
  return makeJobRow({
    id: `6f1c2b4e-0000-4000-8000-${String(jobCount).padStart(12, '0')}`,
    account_id: ACCOUNT,
    status: 'pending',
    check_smtp: true,
    total_rows: 40,
    estimated_count: 40,
    unique_emails: 40,
    billable_emails: 40,
    total_chunks: 20,
    completed_chunks: 0,
    processed_emails: 0,
    valid_emails: 0,
    started_at: null,
    ...overrides,
  });
}

/** Two addresses' results, `greylisted` of them waiting for a retry. */
function results(greylisted = 0): PackedChunkResults {
  return {
    text: '[]',
    counts: {
      addresses: 2,
      statuses: { valid: 2 - greylisted, unknown: greylisted },
      credits: 2,
      greylisted,
    },
  };
}

/** Jobs and their chunks as the database would hold them. */
class JobsStore {
  readonly jobs = new Map<string, JobRow>();
  /** Per job: chunks not published yet, in order. */
  readonly queued = new Map<string, number[]>();
  /** Per job: chunks published and not answered. */
  readonly out = new Map<string, Set<number>>();
  readonly answered = new Map<string, Set<number>>();
  /** Stale chunks put back in the queue by recovery, by job. */
  readonly requeued: string[] = [];
  readonly outbox: Array<{ job_id: string; event: string }> = [];

  add(job: JobRow, publishedAlready: number[] = []): JobRow {
    this.jobs.set(job.id, job);
    const out = new Set(publishedAlready);
    this.out.set(job.id, out);
    this.answered.set(job.id, new Set());
    this.queued.set(
      job.id,
      Array.from({ length: job.total_chunks }, (_, i) => i).filter((c) => !out.has(c)),
    );
    return job;
  }

  get(id: string): JobRow {
    return this.jobs.get(id)!;
  }

  set(id: string, change: Partial<JobRow>): void {
    this.jobs.set(id, { ...this.get(id), ...change });
  }

  /** Records a chunk's answer once; the job as it stands after it, or undefined when nothing changed. */
  answer(jobId: string, chunk: number, failed: boolean, counted: PackedChunkResults, waiting = 0) {
    const job = this.jobs.get(jobId);
    const answered = this.answered.get(jobId)!;
    if (!job || answered.has(chunk) || !['running', 'processing'].includes(job.status)) return undefined;
    answered.add(chunk);
    this.out.get(jobId)!.delete(chunk);
    this.set(jobId, {
      status: 'processing',
      completed_chunks: job.completed_chunks + (failed ? 0 : 1),
      failed_chunks: job.failed_chunks + (failed ? 1 : 0),
      processed_emails: job.processed_emails + counted.counts.addresses - waiting,
      waiting_emails: job.waiting_emails + waiting,
    });
    return this.get(jobId);
  }
}

type RepoMethods = 'findByIdInternal' | 'transitionInternal' | 'activeJobIds' | 'unpublishedEvents';
type ChunkMethods = 'publishChunks' | 'applyChunkResults' | 'applyChunkResult' | 'requeueStale';

function repositoryOver(store: JobsStore): Pick<JobsRepository, RepoMethods> {
  return {
    async findByIdInternal(id) {
      return store.jobs.get(id);
    },
    async transitionInternal(id, from, to, extra) {
      const job = store.jobs.get(id);
      if (!job || !from.includes(job.status)) return undefined;
      store.set(id, { status: to, ...(extra?.startedAt ? { started_at: new Date() } : {}) });
      return store.get(id);
    },
    async activeJobIds() {
      return [...store.jobs.values()]
        .filter((j) => ['pending', 'running', 'processing', 'merging'].includes(j.status))
        .map((j) => ({ id: j.id, status: j.status }));
    },
    async unpublishedEvents() {
      return store.outbox;
    },
  };
}

function chunksOver(store: JobsStore): Pick<ChunksRepository, ChunkMethods> {
  return {
    async publishChunks(jobId, window, publish, minBatch = 1) {
      const out = store.out.get(jobId)!;
      const free = window - out.size;
      if (free < Math.min(minBatch, window)) return [];
      const next = store.queued.get(jobId)!.splice(0, free);
      for (const chunk of next) {
        await publish(chunk, [`a${chunk}@example.com`, `b${chunk}@example.com`]);
        out.add(chunk);
      }
      return next;
    },
    async applyChunkResults(items) {
      return items.map((i) => store.answer(i.jobId, i.chunk, i.failed, i.results));
    },
    async applyChunkResult(jobId, chunk, packed, failed, waiting) {
      return store.answer(jobId, chunk, failed, packed, waiting?.positions.length ?? 0);
    },
    async requeueStale(jobId) {
      // Chunks published by a process that died come back to the queue.
      const out = store.out.get(jobId)!;
      store.queued.get(jobId)!.unshift(...[...out].sort((a, b) => a - b));
      out.clear();
      store.requeued.push(jobId);
      return 0;
    },
  };
}

/** A merge the test ends: which job, following or finishing. */
interface Merge {
  jobId: string;
  kind: 'follow' | 'finish';
  end: () => void;
}

class StandInMerger implements Pick<JobMerger, 'finish' | 'followAndFinish' | 'emit'> {
  readonly merges: Merge[] = [];
  readonly emitted: string[] = [];

  finish(job: JobRow): Promise<void> {
    return this.merge(job, 'finish');
  }

  followAndFinish(job: JobRow): Promise<void> {
    return this.merge(job, 'follow');
  }

  async emit(job: JobRow): Promise<void> {
    this.emitted.push(job.id);
  }

  private merge(job: JobRow, kind: Merge['kind']): Promise<void> {
    return new Promise((resolve) => this.merges.push({ jobId: job.id, kind, end: resolve }));
  }
}

/** Lets every pending promise of the stand-ins run (they all resolve at once). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

interface Setup {
  earlyMergeSeconds?: number;
  mergeConcurrency?: number;
  /** Addresses the greylist retries keep waiting in every result that has greylisted ones. */
  greylistDelays?: boolean;
}

async function setup(store: JobsStore, options: Setup = {}) {
  const published: Array<{ subject: string; message: ChunkMessage; msgId?: string; requestId?: string }> = [];
  const broadcasts: JobStatusBroadcast[] = [];
  let deliver: ((delivery: JsDelivery<ChunkResultMessage>) => Promise<unknown>) | undefined;
  const kit: Pick<JetStreamKit, 'ensureStream' | 'consume' | 'publish' | 'removePartialObjects'> = {
    ensureStream: async () => undefined,
    consume: async (_spec, handler) => {
      deliver = handler as typeof deliver;
      return { stop: async () => undefined, handBack: async () => 0 };
    },
    publish: async (subject, payload, msgId, requestId) => {
      published.push({ subject, message: payload as ChunkMessage, msgId, requestId });
      return { duplicate: false, seq: published.length };
    },
    removePartialObjects: async () => 0,
  };
  const bus: Pick<MessageBus, 'publish'> = {
    publish: (subject, payload) => {
      const status = payload as JobStatusBroadcast;
      expect(subject).toBe(jobStatusSubject(status.jobId));
      broadcasts.push(status);
    },
  };
  const greylistApplied: string[] = [];
  const greylist: Pick<GreylistRetries, 'waitingOf' | 'apply'> = {
    waitingOf: (message) =>
      options.greylistDelays && message.results.counts.greylisted > 0
        ? ({
            positions: Array.from({ length: message.results.counts.greylisted }, (_, i) => i),
            schedule: async () => undefined,
          } satisfies WaitingPlan)
        : undefined,
    apply: async (message) => {
      greylistApplied.push(`${message.jobId}:${message.chunk}:${message.retry}`);
      return store.get(message.jobId);
    },
  };
  const merger = new StandInMerger();
  const merging: Pick<JobMerger, 'finish' | 'followAndFinish' | 'emit'> = merger;
  const metrics = new FileJobsMetrics(new Metrics('file-jobs'));
  const runner = new JobRunner(
    repositoryOver(store) as JobsRepository,
    chunksOver(store) as ChunksRepository,
    bus as MessageBus,
    kit as JetStreamKit,
    merging as JobMerger,
    fileJobsConfigSchema.parse({
      DOWNLOAD_SIGNING_SECRET: 'runner-spec-download-secret',
      FILE_CHUNKS_IN_FLIGHT: String(WINDOW),
      FILE_EARLY_MERGE_SECONDS: String(options.earlyMergeSeconds ?? 0),
      FILE_MERGE_CONCURRENCY: String(options.mergeConcurrency ?? 4),
      // The periodic recovery pass runs only at start here; the tests drive everything else.
      FILE_RECOVERY_INTERVAL_MS: '86400000',
    }),
    pino({ level: 'silent' }),
    metrics,
    greylist as GreylistRetries,
  );
  await runner.start();
  await settle();
  runners.push({ runner, merger });
  /** Hands a chunk's result to the runner as the consumer would; what the handler answered. */
  const result = async (jobId: string, chunk: number, extra: Partial<ChunkResultMessage> = {}) => {
    const answer = await deliver!({
      payload: { jobId, chunk, failed: false, results: results(), ...extra },
      subject: 'verify.results',
      requestId: 'req-1',
      deliveryCount: 1,
      working: () => undefined,
      signal: new AbortController().signal,
    });
    await settle();
    return answer;
  };
  const kick = async (jobId: string) => {
    runner.kick(jobId);
    await settle();
  };
  const chunksOf = (jobId: string) =>
    published.filter((p) => p.message.jobId === jobId).map((p) => p.message.chunk);
  const counted = async (outcome: string) =>
    (await metrics.chunkResults.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
  return { runner, merger, published, broadcasts, greylistApplied, result, kick, chunksOf, counted };
}

const runners: Array<{ runner: JobRunner; merger: StandInMerger }> = [];
afterEach(async () => {
  for (const { runner, merger } of runners.splice(0)) {
    // Stopping waits for the merges this process runs.
    for (const merge of merger.merges) merge.end();
    await runner.stop();
  }
});

describe('JobRunner', () => {
  it('starts a pending job, tells the gateways, and sends out one window of its chunks', async () => {
    const store = new JobsStore();
    const job = store.add(makeJob());
    const t = await setup(store);
    await t.kick(job.id);
    expect(store.get(job.id).status).toBe('running');
    expect(t.broadcasts).toEqual([{ jobId: job.id, status: 'running', processedEmails: 0 }]);
    expect(t.chunksOf(job.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const [first] = t.published;
    expect(first).toEqual({
      subject: chunkSubject(job.id),
      message: {
        jobId: job.id,
        accountId: ACCOUNT,
        chunk: 0,
        checkSmtp: true,
        enrich: false,
        jobCreatedAt: '2026-01-01T00:00:00.000Z',
        emails: ['a0@example.com', 'b0@example.com'],
      },
      msgId: chunkMessageId({ jobId: job.id, chunk: 0 }),
      requestId: 'req-1',
    });
  });

  it("sends a sandbox job's chunks marked sandbox, a live job's without the mark", async () => {
    const store = new JobsStore();
    const sandbox = store.add(makeJob({ mode: 'sandbox' }));
    const live = store.add(makeJob());
    const t = await setup(store);
    await t.kick(sandbox.id);
    await t.kick(live.id);
    const of = (id: string) => t.published.filter((p) => p.message.jobId === id).map((p) => p.message);
    expect(of(sandbox.id)).toHaveLength(WINDOW);
    expect(of(sandbox.id).every((m) => m.sandbox === true)).toBe(true);
    expect(of(live.id).some((m) => 'sandbox' in m)).toBe(false);
  });

  it('tops the window up a quarter of it at a time as results come in', async () => {
    const store = new JobsStore();
    const job = store.add(makeJob());
    const t = await setup(store);
    await t.kick(job.id);
    expect(await t.result(job.id, 0)).toBe('ack');
    // One answered of eight: no refill for a single chunk.
    expect(t.chunksOf(job.id)).toHaveLength(WINDOW);
    await t.result(job.id, 1);
    expect(t.chunksOf(job.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(t.broadcasts.at(-1)).toEqual({ jobId: job.id, status: 'processing', processedEmails: 4 });
  });

  it('applies a redelivered result once', async () => {
    const store = new JobsStore();
    const job = store.add(makeJob());
    const t = await setup(store);
    await t.kick(job.id);
    await t.result(job.id, 0);
    const broadcasts = t.broadcasts.length;
    expect(await t.result(job.id, 0)).toBe('ack');
    expect(store.get(job.id)).toMatchObject({ completed_chunks: 1, processed_emails: 2 });
    expect(t.broadcasts).toHaveLength(broadcasts);
    expect(await t.counted('verified')).toBe(1);
  });

  it('hands a job to the merger once its last chunk is answered, failed chunks included', async () => {
    const store = new JobsStore();
    const job = store.add(makeJob({ total_chunks: 3 }));
    const t = await setup(store);
    await t.kick(job.id);
    await t.result(job.id, 0);
    await t.result(job.id, 1, { failed: true });
    expect(t.merger.merges).toEqual([]);
    await t.result(job.id, 2);
    expect(t.merger.merges.map((m) => [m.jobId, m.kind])).toEqual([[job.id, 'finish']]);
    expect(store.get(job.id)).toMatchObject({ completed_chunks: 2, failed_chunks: 1 });
    expect([await t.counted('verified'), await t.counted('failed')]).toEqual([2, 1]);
    // A kick while it merges starts no second merge in this process.
    await t.kick(job.id);
    expect(t.merger.merges).toHaveLength(1);
  });

  it('leaves a job that was paused or cancelled alone', async () => {
    const store = new JobsStore();
    const paused = store.add(makeJob({ status: 'paused' }));
    const cancelled = store.add(makeJob({ status: 'cancelled' }));
    const t = await setup(store);
    await t.kick(paused.id);
    await t.kick(cancelled.id);
    expect(t.published).toEqual([]);
    expect(t.merger.merges).toEqual([]);
    expect(t.broadcasts).toEqual([]);
  });

  describe('merging early', () => {
    /** A job of 20 chunks started `secondsAgo`, half of them answered; the first answer has `waiting` greylisted. */
    async function halfway(secondsAgo: number, options: Setup, waiting = 0) {
      const store = new JobsStore();
      const job = store.add(
        makeJob({ status: 'processing', started_at: new Date(Date.now() - secondsAgo * 1000) }),
      );
      const t = await setup(store, options);
      await t.kick(job.id);
      await t.result(job.id, 0, waiting > 0 ? { results: results(waiting) } : {});
      for (let chunk = 1; chunk < 10; chunk++) await t.result(job.id, chunk);
      return { t, job, store };
    }

    it('follows a job with its result file once its pace says the rest takes no longer than the horizon', async () => {
      // 10 of 20 chunks in 20 s: about 20 s to go, within 60 s.
      const { t, job } = await halfway(20, { earlyMergeSeconds: 60 });
      expect(t.merger.merges.map((m) => [m.jobId, m.kind])).toEqual([[job.id, 'follow']]);
    });

    it('waits while the rest would take longer than the horizon', async () => {
      // 10 of 20 chunks in 10 minutes: about 10 minutes to go.
      const { t } = await halfway(600, { earlyMergeSeconds: 60 });
      expect(t.merger.merges).toEqual([]);
    });

    it('never merges early when the horizon is 0', async () => {
      const { t } = await halfway(1, { earlyMergeSeconds: 0 });
      expect(t.merger.merges).toEqual([]);
    });

    it('waits while addresses of the job wait for a greylisting retry', async () => {
      const { t, job, store } = await halfway(20, { earlyMergeSeconds: 60, greylistDelays: true }, 1);
      expect(store.get(job.id).waiting_emails).toBe(1);
      expect(t.merger.merges).toEqual([]);
    });
  });

  it('sends the answer to a greylisting retry to the retries, not to the chunk', async () => {
    const store = new JobsStore();
    const job = store.add(makeJob());
    const t = await setup(store, { greylistDelays: true });
    await t.kick(job.id);
    await t.result(job.id, 3, { retry: '1' });
    expect(t.greylistApplied).toEqual([`${job.id}:3:1`]);
    expect(store.get(job.id).completed_chunks).toBe(0);
  });

  it('runs at most FILE_MERGE_CONCURRENCY merges; the end of one starts the one turned away', async () => {
    const store = new JobsStore();
    const answered = { status: 'processing' as const, total_chunks: 2, completed_chunks: 2 };
    const first = store.add(makeJob(answered));
    const second = store.add(makeJob(answered));
    const t = await setup(store, { mergeConcurrency: 1 });
    // The recovery pass at start found both; one merge at a time.
    expect(t.merger.merges.map((m) => m.jobId)).toEqual([first.id]);
    store.set(first.id, { status: 'completed' });
    t.merger.merges[0]!.end();
    await settle();
    await settle();
    expect(t.merger.merges.map((m) => m.jobId)).toEqual([first.id, second.id]);
  });

  it('picks up at start what a stopped process left: stale chunks sent again, events not yet published', async () => {
    const store = new JobsStore();
    // Chunks 0-7 were sent by a process that died before their results came.
    const job = store.add(makeJob({ status: 'processing' }), [0, 1, 2, 3, 4, 5, 6, 7]);
    const done = store.add(makeJob({ status: 'completed' }));
    store.outbox.push({ job_id: done.id, event: 'file.completed' });
    const t = await setup(store);
    expect(store.requeued).toEqual([job.id]);
    expect(t.chunksOf(job.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(t.merger.emitted).toEqual([done.id]);
  });

  it('does nothing more once stopped', async () => {
    const store = new JobsStore();
    const t = await setup(store);
    const job = store.add(makeJob());
    await t.runner.stop();
    await t.kick(job.id);
    expect(store.get(job.id).status).toBe('pending');
    expect(t.published).toEqual([]);
  });
});
