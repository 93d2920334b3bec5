// Benchmark "webhooks", part 3, "product load": the load the webhooks service is sized for. 200 accounts with one
// webhook each, every webhook on an HTTPS receiver of its own (its own port: its own endpoint, as 200 customers'
// servers would be), and 1,000 file jobs completing spread over one minute, 5 per account, at pseudo-random
// moments (the same every run). A job's completion is simulated: at its moment this process stamps the job's end
// (the event's `timestamp`, which file-jobs sets to the job's completed_at) and publishes its FileCompletedEvent
// onto EVENTS as file-jobs does. Per delivery, from that end to the signed delivery arriving at its receiver.
// The target is absolute (p50 < 250 ms, p99 < 2 s), so there is no same-run baseline: the figures are printed
// against the target.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  type AccountId,
  Consumers,
  EventSubjects,
  type FileCompletedEvent,
  Streams,
  Subjects,
} from '@emailverify/contracts';
import type { JetStreamKit } from '@emailverify/messaging';
import {
  type ReceivedRequest,
  type TestSuite,
  WebhookReceiver,
  verifySignatures,
} from '@emailverify/testing';
import { type Cleanup, assertLoopback, disturbed, log, percentile, quick, round, sleep } from './common';
import { CpuMeter } from './load';

export const PRODUCT = {
  accounts: Number(process.env.BENCH_PRODUCT_ACCOUNTS || (quick ? 40 : 200)),
  jobsPerAccount: 5,
  /** The jobs complete over this many seconds (quick: the same rate, a fifth of the jobs). */
  seconds: Number(process.env.BENCH_PRODUCT_SECONDS || (quick ? 12 : 60)),
};
export const PRODUCT_TARGET = { p50Ms: 250, p99Ms: 2_000 };
/** Events published before the measured minute, to an account of their own, so that the service is warm. */
const WARMUP_EVENTS = 20;
/** A wait for the system under test, not a measurement. */
const WAIT_MS = 120_000;
const HOOK_PATH = '/hook';
const WARMUP_PATH = '/product-warm-up';

/** The FileCompletedEvent file-jobs publishes for a job that ended at `end`. */
export function completedEvent(
  accountId: AccountId,
  jobId: string,
  end: Date,
  gatewayUrl: string,
  n: number,
): FileCompletedEvent {
  return {
    event: 'file.completed',
    timestamp: end.toISOString(),
    accountId,
    data: {
      job_id: jobId,
      file_name: `contacts-${n}.csv`,
      total_emails: 1000,
      valid_emails: 800,
      invalid_emails: 120,
      role_emails: 30,
      catchall_emails: 20,
      unknown_emails: 25,
      disposable_emails: 5,
      credits_used: 1000,
      process_time_seconds: 12.5,
      download_url: `${gatewayUrl}/v1/verify/file/${jobId}/results`,
      direct_download_url: `${gatewayUrl}/v1/verify/file/${jobId}/download?expires=${Math.floor(end.getTime() / 1000) + 86400}&signature=${'0'.repeat(64)}`,
      direct_download_expires_at: new Date(end.getTime() + 86_400_000).toISOString(),
    },
  };
}

/** The body the service sends for an event: the event without its accountId (event-intake.ts). */
export const bodyOf = (e: FileCompletedEvent) =>
  JSON.stringify({ event: e.event, timestamp: e.timestamp, data: e.data });

/** One HTTPS receiver per account, each with a test CA of its own, started before the services. */
export async function startProductReceivers(cleanup: Cleanup): Promise<WebhookReceiver[]> {
  const receivers: WebhookReceiver[] = [];
  cleanup.add('product-load receivers', () => Promise.all(receivers.map((r) => r.stop())));
  while (receivers.length < PRODUCT.accounts) {
    const batch = Math.min(20, PRODUCT.accounts - receivers.length);
    receivers.push(...(await Promise.all(Array.from({ length: batch }, () => WebhookReceiver.start()))));
  }
  for (const r of receivers) assertLoopback('product-load receiver', r.url());
  return receivers;
}

/** One file holding every receiver's CA, for the services' NODE_EXTRA_CA_CERTS. */
export async function caBundle(cleanup: Cleanup, receivers: readonly WebhookReceiver[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'emailverify-bench-cas-'));
  cleanup.add('CA bundle', () => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'cas.pem');
  await writeFile(file, receivers.map((r) => r.caPem.trim()).join('\n') + '\n');
  return file;
}

/** A deterministic pseudo-random number generator (mulberry32), so that every run has the same schedule. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ProductJob {
  account: number;
  jobId: string;
  /** When it is due, from the start of the minute. */
  atMs: number;
  /** The job's end as stamped (this process's clock, epoch ms): the event's timestamp. */
  endedAt?: number;
  event?: FileCompletedEvent;
}

/** The jobs of the minute: 5 per account, each at a uniformly random moment, in the order they complete. */
function schedule(): ProductJob[] {
  const next = random(33);
  const accounts = Array.from(
    { length: PRODUCT.accounts * PRODUCT.jobsPerAccount },
    (_, i) => i % PRODUCT.accounts,
  );
  for (let i = accounts.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [accounts[i], accounts[j]] = [accounts[j]!, accounts[i]!];
  }
  const times = accounts.map(() => Math.floor(next() * PRODUCT.seconds * 1000)).sort((a, b) => a - b);
  return accounts.map((account, i) => ({ account, jobId: randomUUID(), atMs: times[i]! }));
}

export interface ProductFigures {
  accounts: number;
  jobs: number;
  seconds: number;
  /** Jobs whose delivery arrived; arrived exactly once; arrived more than once (how many extra requests). */
  delivered: number;
  once: number;
  repeatedRequests: number;
  missing: number;
  exactlyOnce: boolean;
  /** Job end to the first receipt of its signed delivery (ms, nearest-rank). */
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  met: { p50: boolean; p99: boolean };
  /** p50/p99 of each stage (ms): they add up to the delay of each job. */
  stages: Record<string, { p50Ms: number; p99Ms: number }>;
  /** How late the latest job was stamped and published against its moment (this process was busy). */
  publishLateMs: number;
  /** TCP connections the receivers accepted during the minute, each a TLS handshake. */
  accepted: number;
  /** The webhooks service's log lines at warn level or above during the minute (the first 50). */
  warnings: string[];
  /**
   * The webhooks service's EVENTS consumer, sampled every 250 ms during the minute: the most events waiting
   * for it, and how long in all events waited while it had no pull request open (nothing fetching them).
   */
  consumer: { maxPending: number; unpulledMs: number; samples: number };
  cpu: Record<string, number>;
  /**
   * Other work on the machine used BUSY_CORES or more during the minute: the figures are an upper bound of what
   * a quiet machine gives (not run again: the minute is the measurement).
   */
  disturbed: boolean;
  perJob: {
    jobId: string;
    account: number;
    delayMs: number;
    requests: number;
    stagesMs: Record<string, number>;
  }[];
}

/**
 * 3. Product load: the accounts and their webhooks are made, a warm-up goes to an account of its own (on
 * `warmUpReceiver`), then the minute of jobs; it waits for every delivery to arrive and be recorded as a success,
 * and checks each one's signatures and body, and that it arrived once.
 */
export async function measureProductLoad(
  { suite, kit, pid }: { suite: TestSuite; kit: JetStreamKit; pid(name: string): number },
  receivers: readonly WebhookReceiver[],
  warmUpReceiver: WebhookReceiver,
): Promise<ProductFigures> {
  log(
    `product load: ${PRODUCT.accounts} accounts x 1 webhook (one receiver each), ` +
      `${PRODUCT.accounts * PRODUCT.jobsPerAccount} jobs over ${PRODUCT.seconds} s; making the accounts…`,
  );
  const accounts: { accountId: AccountId; secret: string }[] = [];
  for (let i = 0; i < PRODUCT.accounts; i += 10) {
    accounts.push(
      ...(await Promise.all(
        receivers.slice(i, i + 10).map(async (receiver, k) => {
          const account = await suite.createAccount({ credits: 1_000, name: `bench product ${i + k}` });
          const hook = await suite.bus.request(Subjects.webhooksCreate, {
            accountId: account.accountId,
            url: receiver.url(HOOK_PATH),
            events: ['file.completed'],
          });
          return { accountId: account.accountId, secret: hook.secret };
        }),
      )),
    );
  }
  const gatewayUrl = suite.gatewayUrl();

  log(`product load: warming up (${WARMUP_EVENTS} events to an account of their own)…`);
  const warm = await suite.createAccount({ credits: 1_000, name: 'bench product warm-up' });
  await suite.bus.request(Subjects.webhooksCreate, {
    accountId: warm.accountId,
    url: warmUpReceiver.url(WARMUP_PATH),
    events: ['file.completed'],
  });
  for (let i = 0; i < WARMUP_EVENTS; i++) {
    const e = completedEvent(warm.accountId, randomUUID(), new Date(), gatewayUrl, i);
    await kit.publish(EventSubjects.completed, e, `${e.data.job_id}:${e.event}`);
  }
  await waitUntil(
    'product load: warm-up deliveries',
    () => warmUpReceiver.requests(WARMUP_PATH).length >= WARMUP_EVENTS,
  );

  const jobs = schedule();
  for (const r of receivers) r.reset();
  log(`product load: ${jobs.length} jobs over ${PRODUCT.seconds} s…`);
  const jsm = await kit.jsm();
  const stream = kit.streamName(Streams.events.name);
  const firstSeq = (await jsm.streams.info(stream)).state.last_seq + 1;
  const warnings = watchWarnings(suite.processes.get('webhooks')!.child);
  const consumer = watchConsumer(kit, stream, suite.bus.ns.resource(Consumers.webhooksEvents));
  const meter = new CpuMeter({ webhooks: pid('webhooks') });
  const publishes: Promise<unknown>[] = [];
  const start = Date.now();
  let publishLateMs = 0;
  for (const job of jobs) {
    const wait = start + job.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    const end = Date.now();
    publishLateMs = Math.max(publishLateMs, end - (start + job.atMs));
    job.endedAt = end;
    job.event = completedEvent(
      accounts[job.account]!.accountId,
      job.jobId,
      new Date(end),
      gatewayUrl,
      job.atMs,
    );
    publishes.push(kit.publish(EventSubjects.completed, job.event, `${job.jobId}:${job.event.event}`));
  }
  await Promise.all(publishes);
  const total = () => receivers.reduce((sum, r) => sum + r.requests(HOOK_PATH).length, 0);
  // A shortfall is reported below, with what did arrive, rather than ending the run.
  await settle(`product load: ${jobs.length} deliveries`, () => total() >= jobs.length, 50);
  const cpu = meter.stop();
  const warned = warnings.stop();
  const pulls = await consumer.stop();
  const accepted = receivers.reduce((sum, r) => sum + r.connections, 0);
  // Every delivery recorded as a success, so that no attempt is still to come when they are counted.
  const jobIds = jobs.map((j) => j.jobId);
  await settle(
    'product load: deliveries recorded',
    async () => {
      const [row] = await suite.sql<{ done: string }>(
        `SELECT count(*) FILTER (WHERE status = 'success') AS done FROM webhooks.deliveries
          WHERE job_id = ANY($1::uuid[])`,
        [jobIds],
      );
      return Number(row?.done) >= jobs.length;
    },
    100,
  );
  const rows = await suite.sql<{ job_id: string; made: string; attempted: string }>(
    `SELECT d.job_id, extract(epoch FROM d.created_at) * 1000 AS made,
            extract(epoch FROM a.at) * 1000 AS attempted
       FROM webhooks.deliveries d JOIN webhooks.attempts a ON a.delivery_id = d.id AND a.n = 1
      WHERE d.job_id = ANY($1::uuid[])`,
    [jobIds],
  );
  const stored = new Map(
    rows.map((r) => [r.job_id, { made: Number(r.made), attempted: Number(r.attempted) }]),
  );
  // When the NATS server stored each job's event on EVENTS (its clock; the same machine).
  const onStream = new Map<string, number>();
  const lastSeq = (await jsm.streams.info(stream)).state.last_seq;
  for (let seq = firstSeq; seq <= lastSeq; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq });
    if (msg) onStream.set((msg.json() as FileCompletedEvent).data.job_id, msg.time.getTime());
  }

  // Per receiver (one per account): each request signed with its webhook's secret, carrying a known job's body.
  const byJob = new Map(jobs.map((j) => [j.jobId, j]));
  const received = new Map<string, ReceivedRequest[]>();
  const ids = new Set<string>();
  for (const [i, receiver] of receivers.entries()) {
    for (const r of receiver.requests()) {
      const check = verifySignatures({ secret: accounts[i]!.secret, headers: r.headers, rawBody: r.rawBody });
      if (!check.xWebhookSignature || !check.standardWebhooks)
        throw new Error(
          `product load: a delivery to account ${i} is not signed right: ${JSON.stringify(check)}`,
        );
      const job = byJob.get((JSON.parse(r.body) as FileCompletedEvent).data.job_id);
      if (!job || job.account !== i || r.path !== HOOK_PATH || r.body !== bodyOf(job.event!))
        throw new Error(`product load: a request to account ${i} that is none of its jobs' deliveries`);
      received.set(job.jobId, [...(received.get(job.jobId) ?? []), r]);
      ids.add(r.headers['x-webhook-id']!);
    }
  }
  const perJob: ProductFigures['perJob'] = [];
  for (const job of jobs) {
    const requests = received.get(job.jobId);
    if (!requests) continue;
    const first = Math.min(...requests.map((r) => r.receivedAt.getTime()));
    const at = stored.get(job.jobId);
    const streamed = onStream.get(job.jobId);
    const end = job.endedAt!;
    perJob.push({
      jobId: job.jobId,
      account: job.account,
      delayMs: first - end,
      requests: requests.length,
      stagesMs:
        at && streamed !== undefined
          ? {
              'end -> stored on EVENTS (publish)': round(streamed - end, 1),
              'stored -> delivery row (webhooks intake)': round(at.made - streamed, 1),
              'delivery row -> attempt start (hand-over)': round(at.attempted - at.made, 1),
              'attempt start -> received (sign, HTTPS)': round(first - at.attempted, 1),
            }
          : {},
    });
  }
  const delays = perJob.map((j) => j.delayMs);
  const stages: ProductFigures['stages'] = {};
  for (const stage of Object.keys(perJob[0]?.stagesMs ?? {})) {
    const values = perJob.flatMap((j) => (stage in j.stagesMs ? [j.stagesMs[stage]!] : []));
    stages[stage] = { p50Ms: round(percentile(values, 50), 1), p99Ms: round(percentile(values, 99), 1) };
  }
  const requests = [...received.values()].reduce((sum, list) => sum + list.length, 0);
  const once = perJob.filter((j) => j.requests === 1).length;
  const figures: ProductFigures = {
    accounts: PRODUCT.accounts,
    jobs: jobs.length,
    seconds: PRODUCT.seconds,
    delivered: perJob.length,
    once,
    repeatedRequests: requests - perJob.length,
    missing: jobs.length - perJob.length,
    // Each job once, and no delivery id twice (a retried delivery keeps its id).
    exactlyOnce: once === jobs.length && ids.size === requests,
    p50Ms: round(percentile(delays, 50), 1),
    p95Ms: round(percentile(delays, 95), 1),
    p99Ms: round(percentile(delays, 99), 1),
    maxMs: round(Math.max(...delays), 1),
    met: { p50: false, p99: false },
    stages,
    publishLateMs,
    accepted,
    warnings: warned,
    consumer: pulls,
    cpu,
    disturbed: disturbed([cpu]),
    perJob,
  };
  figures.met = { p50: figures.p50Ms < PRODUCT_TARGET.p50Ms, p99: figures.p99Ms < PRODUCT_TARGET.p99Ms };
  log(
    `product load: ${figures.delivered}/${figures.jobs} delivered, ${figures.once} exactly once; ` +
      `p50 ${figures.p50Ms} ms  p95 ${figures.p95Ms} ms  p99 ${figures.p99Ms} ms  max ${figures.maxMs} ms; ` +
      `${accepted} connections accepted; published up to ${publishLateMs} ms late; CPU (cores) ${JSON.stringify(cpu)}; ` +
      `EVENTS consumer: at most ${pulls.maxPending} waiting, ${pulls.unpulledMs} ms with events waiting and no pull open`,
  );
  if (warned.length > 0)
    log(
      `product load: the webhooks service warned ${warned.length} time(s), first: ${warned.slice(0, 3).join(' | ')}`,
    );
  return figures;
}

/** Lines of a pino-logging process at warn level or above, from now until `stop` (at most 50 kept). */
function watchWarnings(child: ChildProcess): { stop(): string[] } {
  const lines: string[] = [];
  let partial = '';
  const take = (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      if (lines.length >= 50 || !line.startsWith('{')) continue;
      try {
        if (((JSON.parse(line) as { level?: number }).level ?? 0) >= 40) lines.push(line.slice(0, 500));
      } catch {
        // not a log line
      }
    }
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return {
    stop: () => {
      child.stdout?.off('data', take);
      child.stderr?.off('data', take);
      return lines;
    },
  };
}

/** Samples a consumer's info every 250 ms: pending events, and whether a pull request was open for them. */
function watchConsumer(
  kit: JetStreamKit,
  stream: string,
  durable: string,
): { stop(): Promise<ProductFigures['consumer']> } {
  const figures = { maxPending: 0, unpulledMs: 0, samples: 0 };
  let stopped = false;
  const loop = (async () => {
    const jsm = await kit.jsm();
    while (!stopped) {
      try {
        const info = await jsm.consumers.info(stream, durable);
        figures.samples++;
        figures.maxPending = Math.max(figures.maxPending, info.num_pending);
        if (info.num_pending > 0 && info.num_waiting === 0) figures.unpulledMs += 250;
      } catch {
        // a missed sample is fine
      }
      await sleep(250);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return figures;
    },
  };
}

/** As waitUntil, but a timeout is logged and the run goes on. */
async function settle(what: string, check: () => boolean | Promise<boolean>, pollMs: number): Promise<void> {
  try {
    await waitUntil(what, check, pollMs);
  } catch (err) {
    log(`${(err as Error).message}; counting what arrived`);
  }
}

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, pollMs = 10): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS / 1000} s`);
    await sleep(pollMs);
  }
}
