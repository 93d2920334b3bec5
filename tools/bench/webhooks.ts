// Benchmark "webhooks", three measurements against one installation:
//
// 1. Delay: small files through the real gateway upload, file-jobs and the verifier (mail world on loopback),
//    one webhook subscribed to file.completed; per job, from its completion (files.jobs.completed_at,
//    PostgreSQL's clock) to the signed delivery arriving at the HTTPS receiver (its receivedAt, this process's
//    clock: the same machine). Split into stages with the EVENTS message time, the delivery row and the attempt.
// 2. Throughput: one account with 25 webhooks on the receiver; events published straight onto EVENTS (shaped
//    like file-jobs' FileCompletedEvent), from the first publish to the last delivery received. Baseline in
//    the same run: a bare node:https client process (bare-webhook-client.ts) posting the same bodies with the
//    same headers, as many at a time as the service's WEBHOOK_DELIVERY_CONCURRENCY, to the same receiver.
// 3. Product load (webhooks-product.ts): 200 accounts with one webhook each, each on a receiver of its own, and
//    1,000 jobs completing over one minute; from each job's end to its signed delivery, against an absolute
//    target (p50 < 250 ms, p99 < 2 s).
// BENCH_PARTS (default `delay,throughput,product`) runs some of them.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { EventSubjects, type FileCompletedEvent, Streams, Subjects } from '@emailverify/contracts';
import { JetStreamKit } from '@emailverify/messaging';
import {
  type Account,
  MailWorld,
  type ReceivedRequest,
  TestSuite,
  WebhookReceiver,
  mailWorldEnv,
  verifySignatures,
} from '@emailverify/testing';
import {
  Cleanup,
  assertLocalInfrastructure,
  assertLoopback,
  disturbed,
  log,
  machine,
  median,
  medianCpu,
  percentile,
  printTable,
  quick,
  round,
  sleep,
  warnIfBusy,
  withTimeout,
  writeReport,
} from './common';
import { CpuMeter, cpuSeconds } from './load';
import { profileEnv, profiled } from './profile';
import {
  PRODUCT,
  PRODUCT_TARGET,
  type ProductFigures,
  bodyOf,
  caBundle,
  completedEvent,
  measureProductLoad,
  startProductReceivers,
} from './webhooks-product';

/** The most an account may have (MAX_WEBHOOKS_PER_ACCOUNT). */
const WEBHOOKS = 25;
/** Events per throughput round: x 25 webhooks = 2,500 deliveries (quick: 500). */
const EVENTS = Number(process.env.BENCH_EVENTS || (quick ? 20 : 100));
const WARMUP_EVENTS = quick ? 4 : 20;
const ROUNDS = quick ? 1 : 3;
/** Rounds run again at most when other work on the machine disturbed them. */
const EXTRA_ROUNDS = quick ? 0 : 1;
/** Jobs whose delay is measured (at least 50 for the figures), and how many run at a time. */
const JOBS = Number(process.env.BENCH_JOBS || (quick ? 10 : 60));
const JOBS_IN_FLIGHT = Math.max(1, Number(process.env.BENCH_JOBS_IN_FLIGHT || 4));
const WARMUP_JOBS = quick ? 2 : 5;
/** The service's knobs: passed on when set, the service's defaults otherwise (the bare client uses the same). */
const KNOBS = ['WEBHOOK_DELIVERY_CONCURRENCY', 'WEBHOOK_POLL_INTERVAL_MS', 'PGOPTIONS'] as const;
const CONCURRENCY = Number(process.env.WEBHOOK_DELIVERY_CONCURRENCY || 32);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'info';
/**
 * `retiredRatio`: the throughput target (deliveries/s to one account's 25 webhooks against a bare client) is
 * retired: a load the product never sends (docs/benchmarks.md); the ratio is still printed for comparison.
 */
const TARGET = { delayP50Ms: 250, retiredRatio: 0.5 };
const PARTS = ['delay', 'throughput', 'product'] as const;
type Part = (typeof PARTS)[number];
/** The measurements to run, in their order. */
const RUN = new Set(
  (process.env.BENCH_PARTS || PARTS.join(','))
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean),
);
for (const p of RUN)
  if (!PARTS.includes(p as Part)) throw new Error(`BENCH_PARTS: ${p} is none of ${PARTS.join(', ')}`);
/** A wait for the system under test, not a measurement: generous on a busy two-core machine. */
const WAIT_MS = 120_000;

const DOMAIN = 'hooks.bench.test';

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, pollMs = 10): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS / 1000} s`);
    await sleep(pollMs);
  }
}

/** Socket inodes a process holds (Linux /proc/<pid>/fd). */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith('socket:[')) inodes.add(target.slice(8, -1));
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // not Linux, or the process is gone
  }
  return inodes;
}

/**
 * Established TCP connections from process `pid` to 127.0.0.1:<port> (Linux /proc/net/tcp). Reading that file
 * costs tens of milliseconds of CPU on a machine with many sockets: once per round, never in a loop.
 */
function connectionsTo(port: number, pid: number): number {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  try {
    const mine = socketInodes(pid);
    let n = 0;
    for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n')) {
      const fields = line.trim().split(/\s+/);
      if (fields[2] === remote && fields[3] === '01' && mine.has(fields[9]!)) n++;
    }
    return n;
  } catch {
    return 0;
  }
}

/**
 * Samples, during a service round, what the suite database's backends are doing (not idle), by state, wait
 * event and the start of the statement, every 100 ms over one kept-open connection.
 */
class PgSampler {
  /** `state/wait: statement start` -> samples. */
  counts: Record<string, number> = {};
  samples = 0;
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(private readonly db: Client) {
    this.timer = setInterval(() => void this.sample(), 100);
  }

  /** Backends per key, on average over the samples, busiest first. */
  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.timer = undefined;
    return Object.fromEntries(
      Object.entries(this.counts)
        .map(([key, n]) => [key, round(n / Math.max(1, this.samples), 2)] as const)
        .sort((x, y) => y[1] - x[1]),
    );
  }

  private async sample(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const { rows } = await this.db.query<{ key: string; n: string }>(
        `SELECT coalesce(state, '?') || '/' || coalesce(wait_event_type || ':' || wait_event, 'cpu') || ': ' ||
                regexp_replace(left(query, 40), '\\s+', ' ', 'g') AS key, count(*) AS n
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'
          GROUP BY 1`,
      );
      if (!this.timer) return;
      this.samples++;
      for (const { key, n } of rows) this.counts[key] = (this.counts[key] ?? 0) + Number(n);
    } catch {
      // a missed sample is fine
    } finally {
      this.busy = false;
    }
  }
}

interface BareClient {
  pid: number;
  load(requests: object[]): Promise<void>;
  go(): Promise<{ ok: number; failed: number; errors: string[] }>;
}

async function startBare(cleanup: Cleanup, caFile: string): Promise<BareClient> {
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'bare-webhook-client.js')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanup.add('bare client', async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  });
  // Replies come in the order of the commands; a client that dies fails what waits.
  const waiting: { reply: (line: string) => void; fail: (err: Error) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => waiting.shift()?.reply(line));
  child.once('exit', (code, signal) => {
    for (const w of waiting.splice(0)) w.fail(new Error(`bare client exited (${code ?? signal})`));
  });
  const next = (what: string) =>
    withTimeout(
      new Promise<Record<string, unknown>>((resolve, reject) => {
        waiting.push({
          reply: (line) => {
            const reply = JSON.parse(line) as Record<string, unknown>;
            if ('error' in reply) reject(new Error(`bare client: ${String(reply.error)}`));
            else resolve(reply);
          },
          fail: reject,
        });
      }),
      WAIT_MS,
      `bare client ${what}`,
    );
  const send = (command: object) => child.stdin!.write(`${JSON.stringify(command)}\n`);
  await next('start');
  return {
    pid: child.pid!,
    load: async (requests) => {
      const reply = next('load');
      send({ cmd: 'load', caFile, concurrency: CONCURRENCY, requests });
      await reply;
    },
    go: async () => {
      const reply = next('run');
      send({ cmd: 'go' });
      return (await reply) as { ok: number; failed: number; errors: string[] };
    },
  };
}

interface DelayFigures {
  jobs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** p50/p99 of each stage (ms): they add up to the delay of each job. */
  stages: Record<string, { p50Ms: number; p99Ms: number }>;
  perJob: { jobId: string; delayMs: number; stagesMs: Record<string, number> }[];
  cpu: Record<string, number>;
}

interface ThroughputFigures {
  deliveries: number;
  /** First event published (service) or first request started (bare) to the last delivery received. */
  seconds: number;
  deliveriesPerSecond: number;
  /** Until the first delivery arrived; and (service) until the last event was on the stream. */
  firstDeliveryMs: number;
  publishMs?: number;
  /** Connections the sender holds open to the receiver right after the round (kept alive: its pool size). */
  connections: number;
  /**
   * TCP connections the receiver accepted during the round, each with a TLS handshake: 0 when the sender's
   * pool was warm and kept alive throughout.
   */
  accepted: number;
  /** CPU milliseconds per delivery: the sender, PostgreSQL, NATS and this process (the receiver). */
  cpuMsPerDelivery: Record<string, number>;
  /**
   * Service side: PostgreSQL backends of the suite's database that were not idle, on average over samples
   * every 100 ms, by state, wait event (`cpu` when none) and the start of the statement.
   */
  pgBackends?: Record<string, number>;
  cpu: Record<string, number>;
}

/** The installation under test and what every phase measures it with. */
interface Bench {
  suite: TestSuite;
  receiver: WebhookReceiver;
  kit: JetStreamKit;
  /** A connection of its own for sampling PostgreSQL during a round. */
  sampling: Client;
  bare: BareClient;
  /** Product load: one receiver per account. */
  productReceivers: WebhookReceiver[];
  pid(name: string): number;
}

/** The service's knobs set in the environment, passed on to it. */
type Knobs = Record<string, string>;

async function main(cleanup: Cleanup): Promise<void> {
  assertLocalInfrastructure();
  const knobs: Knobs = Object.fromEntries(
    KNOBS.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
  );
  log(
    `webhooks: ${[...RUN].join(', ')}: delay over ${JOBS} jobs (${JOBS_IN_FLIGHT} at a time); throughput ${ROUNDS} ` +
      `round(s) of ${EVENTS} events x ${WEBHOOKS} webhooks per side, ${CONCURRENCY} in flight; product load ` +
      `${PRODUCT.accounts * PRODUCT.jobsPerAccount} jobs of ${PRODUCT.accounts} accounts over ${PRODUCT.seconds} s; ` +
      `knobs ${JSON.stringify(knobs)}`,
  );
  const bench = await startInstallation(cleanup, knobs);
  const delay = RUN.has('delay') ? await measureDelay(bench) : undefined;
  const throughput = RUN.has('throughput') ? await measureThroughput(bench) : undefined;
  const product = RUN.has('product')
    ? await measureProductLoad(bench, bench.productReceivers, bench.receiver)
    : undefined;
  report(knobs, delay, throughput, product);
}

/** The HTTPS receiver, a mail world, the services with the gateway, and the bare client. */
async function startInstallation(cleanup: Cleanup, knobs: Knobs): Promise<Bench> {
  const receiver = await WebhookReceiver.start();
  cleanup.add('webhook receiver', () => receiver.stop());
  assertLoopback('webhook receiver', receiver.url());
  const productReceivers = RUN.has('product') ? await startProductReceivers(cleanup) : [];
  const cas = await caBundle(cleanup, [receiver, ...productReceivers]);
  const world = await MailWorld.start();
  cleanup.add('mail world', () => world.stop());
  world.domain(DOMAIN, { mx: [{ priority: 10, host: `mx.${DOMAIN}`, smtp: 'refused' }] });
  await world.ready();

  log('starting credits, verifier, file-jobs, webhooks and gateway (own database and NATS namespace)…');
  const suite = await TestSuite.start({
    services: ['credits', 'verifier', 'file-jobs', 'webhooks'],
    env: {
      LOG_LEVEL,
      ...mailWorldEnv(world),
      DNS_TIMEOUT_MS: '3000',
      RATE_LIMIT_FILE: '1000000000',
      RATE_LIMIT_OTHER: '1000000000',
      // The receivers' test CAs, and their loopback address allowed as a target.
      NODE_EXTRA_CA_CERTS: cas,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ...knobs,
      ...profileEnv(),
    },
  });
  cleanup.add('suite', () => suite.stop());
  assertLoopback('gateway', suite.gatewayUrl());
  const pid = (name: string) => suite.processes.get(name)!.child.pid!;
  const kit = new JetStreamKit(suite.bus);
  const sampling = new Client({ connectionString: suite.databaseUrl, application_name: 'bench sampler' });
  await sampling.connect();
  cleanup.add('sampling connection', () => sampling.end());
  const bare = await startBare(cleanup, receiver.caFile);

  return { suite, receiver, kit, sampling, bare, productReceivers, pid };
}

/** 1. Delay from a job's completion to its delivery, over small files through the whole installation. */
async function measureDelay({ suite, receiver, kit, pid }: Bench): Promise<DelayFigures> {
  const jobsAccount = await suite.createAccount({ credits: 1_000_000, name: 'bench webhooks delay' });
  const delayHook = await suite.bus.request(Subjects.webhooksCreate, {
    accountId: jobsAccount.accountId,
    url: receiver.url('/delay'),
    events: ['file.completed'],
  });
  let jobNumber = 0;
  const runJob = async (): Promise<string> => {
    const n = jobNumber++;
    const csv = `email\nj${n}.a@${DOMAIN}\nj${n}.b@${DOMAIN}\n`;
    const up = await suite.upload({ key: jobsAccount.apiKey, file: { name: `job-${n}.csv`, content: csv } });
    if (up.status !== 200) throw new Error(`upload: ${up.status} ${up.text}`);
    const id = up.json.data.task_id as string;
    for (;;) {
      const res = await suite.call(`/v1/verify/file/${id}?timeout=30`, { key: jobsAccount.apiKey });
      const status = res.json?.data?.status as string | undefined;
      if (status === 'completed') return id;
      if (res.status !== 200 || ['completed_with_warning', 'failed', 'cancelled'].includes(status ?? ''))
        throw new Error(`job ${id}: ${res.status} ${res.text}`);
    }
  };
  const runJobs = async (count: number): Promise<string[]> => {
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: Math.min(JOBS_IN_FLIGHT, count) }, async () => {
        while (ids.length < count) {
          const slot = ids.push('') - 1; // taken before the await, so the workers stop at `count`
          ids[slot] = await runJob();
        }
      }),
    );
    return ids;
  };
  /** Until each of `jobIds` has had a delivery to `requestPath` (retries and other jobs' deliveries aside). */
  const delivered = (requestPath: string, jobIds: string[]) =>
    waitUntil(`${jobIds.length} jobs' deliveries to ${requestPath}`, () => {
      const bodies = receiver.requests(requestPath).map((r) => r.body);
      return jobIds.every((id) => bodies.some((body) => body.includes(id)));
    });

  log(`delay: warming up (${WARMUP_JOBS} jobs)…`);
  await delivered('/delay', await runJobs(WARMUP_JOBS));
  receiver.reset();
  log(`delay: ${JOBS} jobs, ${JOBS_IN_FLIGHT} at a time…`);
  const delayMeter = new CpuMeter({
    gateway: pid('gateway0'),
    'file-jobs': pid('file-jobs'),
    verifier: pid('verifier'),
    credits: pid('credits'),
    webhooks: pid('webhooks'),
  });
  const jobIds = await runJobs(JOBS);
  await delivered('/delay', jobIds);
  const delayCpu = delayMeter.stop();
  // An attempt is recorded a little after its delivery arrived (outcomes are stored in batches): every first
  // attempt stored before the stages are read.
  await waitUntil(
    `delay: ${JOBS} first attempts recorded`,
    async () => {
      const [row] = await suite.sql<{ n: string }>(
        `SELECT count(*) AS n FROM webhooks.deliveries d
           JOIN webhooks.attempts a ON a.delivery_id = d.id AND a.n = 1
          WHERE d.job_id = ANY($1::uuid[])`,
        [jobIds],
      );
      return Number(row?.n) >= jobIds.length;
    },
    50,
  );
  const delay = await delayFigures(suite, kit, receiver.requests('/delay'), jobIds, delayHook.secret);
  delay.cpu = delayCpu;
  log(
    `delay: p50 ${delay.p50Ms} ms  p99 ${delay.p99Ms} ms  max ${delay.maxMs} ms over ${delay.jobs} jobs; ` +
      `stages p50 ${Object.entries(delay.stages)
        .map(([k, v]) => `${k} ${v.p50Ms}`)
        .join(', ')} ms`,
  );
  return delay;
}

/** One account with 25 webhooks on the receiver, and the events a round publishes for it. */
interface ThroughputAccount {
  account: Account;
  hooks: { path: string; secret: string }[];
  secretOf: Map<string, string>;
  makeEvents(count: number): FileCompletedEvent[];
}

interface ThroughputRuns {
  runs: Record<'service' | 'bare', ThroughputFigures[]>;
  discarded: Record<string, ThroughputFigures>[];
}

/**
 * 2. Deliveries per second, one account with 25 webhooks: rounds of the service and of the bare client in
 * alternating order, a disturbed round run again (at most EXTRA_ROUNDS).
 */
async function measureThroughput(bench: Bench): Promise<ThroughputRuns> {
  const target = await throughputAccount(bench);
  const service = (label: string, count: number) => serviceRound(bench, target, label, count);
  const bareSide = (label: string, count: number) => bareRound(bench, target, label, count);

  log(`throughput: warming up (${WARMUP_EVENTS} events x ${WEBHOOKS} webhooks per side)…`);
  await service('warm-up', WARMUP_EVENTS);
  await bareSide('warm-up', WARMUP_EVENTS);

  const runs: Record<'service' | 'bare', ThroughputFigures[]> = { service: [], bare: [] };
  const discarded: Record<string, ThroughputFigures>[] = [];
  for (let r = 0; runs.service.length < ROUNDS; r++) {
    // Alternate the order so that drift (other load on the machine) does not favour one side.
    const order: ('service' | 'bare')[] = r % 2 === 0 ? ['service', 'bare'] : ['bare', 'service'];
    const got: Partial<Record<'service' | 'bare', ThroughputFigures>> = {};
    for (const side of order) {
      const figures = await (side === 'service' ? service : bareSide)(`round ${r + 1}`, EVENTS);
      got[side] = figures;
      log(
        `round ${r + 1} ${side.padEnd(7)} ${figures.deliveries} deliveries in ${figures.seconds} s = ` +
          `${figures.deliveriesPerSecond}/s  first after ${figures.firstDeliveryMs} ms` +
          (figures.publishMs !== undefined ? `  published in ${figures.publishMs} ms` : '') +
          `  ${figures.connections} connections (${figures.accepted} new)  CPU (cores) ${JSON.stringify(figures.cpu)}` +
          `  CPU ms/delivery ${JSON.stringify(figures.cpuMsPerDelivery)}`,
      );
      if (figures.pgBackends)
        log(`  PostgreSQL backends not idle (average): ${describeBackends(figures.pgBackends)}`);
    }
    if (discarded.length < EXTRA_ROUNDS && disturbed([got.service!.cpu, got.bare!.cpu])) {
      log(`round ${r + 1} disturbed by other work on the machine: running it again`);
      discarded.push(got as Record<string, ThroughputFigures>);
      continue;
    }
    runs.service.push(got.service!);
    runs.bare.push(got.bare!);
  }

  // --profile: one more service round with the webhooks service profiled, outside the figures.
  await profiled(bench.suite, ['webhooks'], () => service('profile', EVENTS));

  return { runs, discarded };
}

async function throughputAccount({ suite, receiver }: Bench): Promise<ThroughputAccount> {
  const account = await suite.createAccount({ credits: 1_000, name: 'bench webhooks throughput' });
  const hooks: { path: string; secret: string }[] = [];
  for (let i = 0; i < WEBHOOKS; i++) {
    const created = await suite.bus.request(Subjects.webhooksCreate, {
      accountId: account.accountId,
      url: receiver.url(`/t/${i}`),
      events: ['file.completed'],
    });
    hooks.push({ path: `/t/${i}`, secret: created.secret });
  }
  const secretOf = new Map(hooks.map((h) => [h.path, h.secret]));
  const base = suite.gatewayUrl();
  const makeEvents = (count: number): FileCompletedEvent[] =>
    Array.from({ length: count }, (_, i) =>
      completedEvent(account.accountId, randomUUID(), new Date(), base, i),
    );

  return { account, hooks, secretOf, makeEvents };
}

/** Every request of a round: signed both ways by its webhook's secret, once per id, with a known body. */
function checkRound(
  receiver: WebhookReceiver,
  secretOf: Map<string, string>,
  what: string,
  events: FileCompletedEvent[],
  expected: number,
): void {
  const requests = receiver.requests();
  const bodies = new Map(events.map((e) => [e.data.job_id, bodyOf(e)]));
  const ids = new Map<string, ReceivedRequest[]>();
  for (const r of requests) {
    const secret = secretOf.get(r.path);
    if (!secret) throw new Error(`${what}: a request to ${r.path}`);
    const check = verifySignatures({ secret, headers: r.headers, rawBody: r.rawBody });
    if (!check.xWebhookSignature || !check.standardWebhooks)
      throw new Error(`${what}: a delivery to ${r.path} is not signed right: ${JSON.stringify(check)}`);
    const jobId = (JSON.parse(r.body) as FileCompletedEvent).data.job_id;
    if (bodies.get(jobId) !== r.body) throw new Error(`${what}: a body that is not the event's`);
    const id = r.headers['x-webhook-id']!;
    ids.set(id, [...(ids.get(id) ?? []), r]);
  }
  if (requests.length !== expected || ids.size !== expected) {
    const twice = [...ids].filter(([, list]) => list.length > 1).slice(0, 5);
    throw new Error(
      `${what}: ${requests.length} requests, ${ids.size} ids, expected ${expected}; received more than once: ` +
        twice
          .map(([id, list]) => `${id} at ${list.map((r) => r.receivedAt.toISOString()).join(', ')}`)
          .join('; '),
    );
  }
}

const lastReceived = (requests: ReceivedRequest[]) =>
  Math.max(...requests.map((r) => r.receivedAt.getTime()));
const firstReceived = (requests: ReceivedRequest[]) =>
  Math.min(...requests.map((r) => r.receivedAt.getTime()));

/** A round of the service: events published onto EVENTS, to the last delivery received and recorded. */
async function serviceRound(
  { suite, receiver, kit, sampling, pid }: Bench,
  { account, secretOf, makeEvents }: ThroughputAccount,
  label: string,
  count: number,
): Promise<ThroughputFigures> {
  const events = makeEvents(count);
  const expected = count * WEBHOOKS;
  receiver.reset();
  const meter = new CpuMeter({ webhooks: pid('webhooks') });
  const backends = await BackendMeter.start(sampling, 'webhooks');
  const sampler = new PgSampler(sampling);
  const started = Date.now();
  for (const e of events) await kit.publish(EventSubjects.completed, e, `${e.data.job_id}:${e.event}`);
  const published = Date.now();
  await waitUntil(`${label}: ${expected} deliveries`, () => receiver.requests().length >= expected);
  const cpu = meter.stop();
  cpu.webhooksPg = await backends.stop();
  const metered = Date.now() - started;
  const pgBackends = sampler.stop();
  const connections = connectionsTo(receiver.port, pid('webhooks'));
  const accepted = receiver.connections;
  const requests = receiver.requests();
  const ended = lastReceived(requests);
  // Every attempt recorded before the next round, so that one does not pay for this one.
  const jobs = events.map((e) => e.data.job_id);
  await waitUntil(
    `${label}: deliveries recorded`,
    async () => {
      const [row] = await suite.sql<{ pending: string }>(
        `SELECT count(*) FILTER (WHERE status <> 'success') AS pending FROM webhooks.deliveries
          WHERE account_id = $1 AND job_id = ANY($2::uuid[])`,
        [account.accountId, jobs],
      );
      return row?.pending === '0';
    },
    50,
  );
  checkRound(receiver, secretOf, `service ${label}`, events, expected);
  return {
    deliveries: requests.length,
    seconds: round((ended - started) / 1000, 3),
    deliveriesPerSecond: round(requests.length / ((ended - started) / 1000), 1),
    firstDeliveryMs: firstReceived(requests) - started,
    publishMs: published - started,
    connections,
    accepted,
    pgBackends,
    cpu,
    cpuMsPerDelivery: perDelivery(cpu, metered, requests.length, [
      'webhooks',
      'webhooksPg',
      'postgres',
      'nats',
      'bench',
    ]),
  };
}

/** A round of the bare client: the same bodies to the same webhooks, as many at a time as the service. */
async function bareRound(
  { receiver, bare }: Bench,
  { hooks, secretOf, makeEvents }: ThroughputAccount,
  label: string,
  count: number,
): Promise<ThroughputFigures> {
  const events = makeEvents(count);
  const expected = count * WEBHOOKS;
  // Event by event, each to every webhook: the order in which the service makes its deliveries.
  const requests = events.flatMap((e) =>
    hooks.map((h) => ({
      url: receiver.url(h.path),
      body: bodyOf(e),
      id: randomUUID(),
      event: e.event,
      secret: h.secret,
    })),
  );
  receiver.reset();
  await bare.load(requests);
  const meter = new CpuMeter({ bare: bare.pid });
  const started = Date.now();
  const reply = await bare.go();
  if (reply.failed > 0)
    throw new Error(`bare ${label}: ${reply.failed} failed: ${JSON.stringify(reply.errors)}`);
  await waitUntil(`${label}: ${expected} bare requests`, () => receiver.requests().length >= expected);
  const cpu = meter.stop();
  const metered = Date.now() - started;
  const connections = connectionsTo(receiver.port, bare.pid);
  const accepted = receiver.connections;
  const received = receiver.requests();
  const ended = lastReceived(received);
  checkRound(receiver, secretOf, `bare ${label}`, events, expected);
  return {
    deliveries: received.length,
    seconds: round((ended - started) / 1000, 3),
    deliveriesPerSecond: round(received.length / ((ended - started) / 1000), 1),
    firstDeliveryMs: firstReceived(received) - started,
    connections,
    accepted,
    cpu,
    cpuMsPerDelivery: perDelivery(cpu, metered, received.length, ['bare', 'postgres', 'nats', 'bench']),
  };
}

/**
 * The tables and the report file: the delay, the median of each side's rounds with their ratio, and the product
 * load against its absolute target (the parts that ran).
 */
function report(
  knobs: Knobs,
  delay: DelayFigures | undefined,
  throughput: ThroughputRuns | undefined,
  product: ProductFigures | undefined,
): void {
  const summary = (list: ThroughputFigures[]) => ({
    deliveriesPerSecond: round(median(list.map((f) => f.deliveriesPerSecond)), 1),
    seconds: round(median(list.map((f) => f.seconds)), 3),
    firstDeliveryMs: median(list.map((f) => f.firstDeliveryMs)),
    connections: median(list.map((f) => f.connections)),
    accepted: median(list.map((f) => f.accepted)),
    cpuMsPerDelivery: Object.fromEntries(
      Object.keys(list[0]?.cpuMsPerDelivery ?? {}).map((k) => [
        k,
        round(median(list.map((f) => f.cpuMsPerDelivery[k] ?? 0)), 3),
      ]),
    ),
    cpu: medianCpu(list.map((f) => f.cpu)),
  });
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  const delayMet = delay ? delay.p50Ms < TARGET.delayP50Ms : undefined;
  const runs = throughput?.runs;
  const serviceSummary = runs && summary(runs.service);
  const bareSummary = runs && summary(runs.bare);
  const ratio =
    serviceSummary && bareSummary
      ? round(serviceSummary.deliveriesPerSecond / bareSummary.deliveriesPerSecond, 3)
      : undefined;
  const ratioMet = ratio === undefined ? undefined : ratio >= TARGET.retiredRatio;

  warnIfBusy([
    ...(delay ? [delay.cpu] : []),
    ...(runs ? [...runs.service.map((f) => f.cpu), ...runs.bare.map((f) => f.cpu)] : []),
    ...(product ? [product.cpu] : []),
  ]);
  if (delay)
    printTable(
      ['job completed -> signed delivery received', 'jobs', 'p50 ms', 'p99 ms', 'max ms', 'target'],
      [
        [
          'file-jobs -> EVENTS -> webhooks -> HTTPS',
          delay.jobs,
          delay.p50Ms,
          delay.p99Ms,
          delay.maxMs,
          `p50 < ${TARGET.delayP50Ms} ms: ${verdict(delayMet!)}`,
        ],
        ...Object.entries(delay.stages).map(([stage, s]) => [`  ${stage}`, '', s.p50Ms, s.p99Ms, '', '']),
      ],
    );
  if (serviceSummary && bareSummary)
    printTable(
      [
        `${EVENTS} events x ${WEBHOOKS} webhooks, 1 account`,
        'deliveries/s',
        'seconds',
        'first ms',
        'conns (new)',
        'CPU ms/delivery: sender',
        'its pg backends',
        'receiver',
        'other CPU',
      ],
      [
        [
          'webhooks service (median)',
          serviceSummary.deliveriesPerSecond,
          serviceSummary.seconds,
          serviceSummary.firstDeliveryMs,
          `${serviceSummary.connections} (${serviceSummary.accepted})`,
          serviceSummary.cpuMsPerDelivery.webhooks ?? '',
          serviceSummary.cpuMsPerDelivery.webhooksPg ?? '',
          serviceSummary.cpuMsPerDelivery.bench ?? '',
          serviceSummary.cpu.other ?? '',
        ],
        [
          'bare node:https client (median)',
          bareSummary.deliveriesPerSecond,
          bareSummary.seconds,
          bareSummary.firstDeliveryMs,
          `${bareSummary.connections} (${bareSummary.accepted})`,
          bareSummary.cpuMsPerDelivery.bare ?? '',
          0,
          bareSummary.cpuMsPerDelivery.bench ?? '',
          bareSummary.cpu.other ?? '',
        ],
        [
          'ratio service / bare',
          ratio!,
          '',
          '',
          '',
          '',
          '',
          '',
          `retired target (was >= ${TARGET.retiredRatio}): ${ratioMet ? 'would be met' : 'would not be met'}`,
        ],
      ],
    );
  if (product) {
    log(
      'product load: the target is absolute (no same-run baseline), so the figures are printed against it; ' +
        'the service runs at its defaults but for WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (the receivers are on loopback)',
    );
    printTable(
      [
        `job end -> signed delivery: ${product.jobs} jobs, ${product.accounts} accounts x 1 webhook, ${product.seconds} s`,
        'delivered',
        'once',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'max ms',
        'target',
      ],
      [
        [
          'EVENTS -> webhooks -> HTTPS (own receiver each)',
          `${product.delivered}/${product.jobs}`,
          product.exactlyOnce ? 'all' : `${product.once} (${product.repeatedRequests} repeats)`,
          product.p50Ms,
          product.p95Ms,
          product.p99Ms,
          product.maxMs,
          `p50 < ${PRODUCT_TARGET.p50Ms} ms: ${verdict(product.met.p50)}; ` +
            `p99 < ${PRODUCT_TARGET.p99Ms} ms: ${verdict(product.met.p99)}`,
        ],
        ...Object.entries(product.stages).map(([stage, s]) => [
          `  ${stage}`,
          '',
          '',
          s.p50Ms,
          '',
          s.p99Ms,
          '',
          '',
        ]),
      ],
    );
    log(
      `product load: CPU (cores) webhooks ${product.cpu.webhooks}, postgres ${product.cpu.postgres}, ` +
        `nats ${product.cpu.nats}, receivers (this process) ${product.cpu.bench}, other work ${product.cpu.other}; ` +
        `${product.accepted} connections accepted (TLS handshakes); jobs published up to ${product.publishLateMs} ms late`,
    );
  }
  const file = writeReport('webhooks', {
    benchmark: 'webhooks',
    date: new Date().toISOString(),
    machine: machine(),
    parts: [...RUN],
    settings: {
      jobs: JOBS,
      jobsInFlight: JOBS_IN_FLIGHT,
      warmupJobs: WARMUP_JOBS,
      rowsPerJob: 2,
      webhooks: WEBHOOKS,
      eventsPerRound: EVENTS,
      deliveriesPerRound: EVENTS * WEBHOOKS,
      warmupEvents: WARMUP_EVENTS,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      product: PRODUCT,
      knobs,
      serviceLogLevel: LOG_LEVEL,
      quick,
    },
    targets: { ...TARGET, product: PRODUCT_TARGET },
    ...(delay && {
      delay: {
        ...delay,
        met: delayMet,
        meaning:
          'files.jobs.completed_at (PostgreSQL clock) to the receiver receivedAt (same machine), per job; ' +
          'stages: to the EVENTS message time, to the delivery row (created_at), to the attempt start, to receipt',
      },
    }),
    ...(throughput && {
      service: { ...serviceSummary, runs: throughput.runs.service },
      bare: { ...bareSummary, runs: throughput.runs.bare },
      discardedRounds: throughput.discarded,
      ratio: {
        throughput: ratio,
        retiredTarget: TARGET.retiredRatio,
        metRetiredTarget: ratioMet,
        meaning:
          'service deliveries/s (first event published to last delivery received) / bare client deliveries/s (first request to last received)',
      },
    }),
    ...(product && {
      product: {
        ...product,
        meaning:
          "the job's end as stamped in its event's timestamp when published onto EVENTS (this process's clock) to " +
          "the first receipt of its delivery at the account's own receiver (same process); absolute target, no baseline",
      },
    }),
  });
  log(`figures written to ${file}`);
}

/**
 * Per job: completion (files.jobs.completed_at, microseconds) to the delivery's receipt, and the stages in
 * between: the event's time on the EVENTS stream (the NATS server's clock), the delivery row's created_at and
 * the first attempt's start (the webhooks service's clock). Every delivery must verify with the secret.
 */
async function delayFigures(
  suite: TestSuite,
  kit: JetStreamKit,
  requests: ReceivedRequest[],
  jobIds: string[],
  secret: string,
): Promise<DelayFigures> {
  const completed = new Map(
    (
      await suite.sql<{ id: string; ms: string }>(
        `SELECT id, extract(epoch FROM completed_at) * 1000 AS ms FROM files.jobs WHERE id = ANY($1::uuid[])`,
        [jobIds],
      )
    ).map((r) => [r.id, Number(r.ms)]),
  );
  const deliveries = new Map(
    (
      await suite.sql<{ job_id: string; made: string; attempted: string }>(
        `SELECT d.job_id, extract(epoch FROM d.created_at) * 1000 AS made,
                extract(epoch FROM a.at) * 1000 AS attempted
           FROM webhooks.deliveries d JOIN webhooks.attempts a ON a.delivery_id = d.id AND a.n = 1
          WHERE d.job_id = ANY($1::uuid[])`,
        [jobIds],
      )
    ).map((r) => [r.job_id, { made: Number(r.made), attempted: Number(r.attempted) }]),
  );
  const onStream = new Map<string, number>();
  const jsm = await kit.jsm();
  const stream = kit.streamName(Streams.events.name);
  const info = await jsm.streams.info(stream);
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq });
    if (msg) onStream.set((msg.json() as FileCompletedEvent).data.job_id, msg.time.getTime());
  }

  const perJob: DelayFigures['perJob'] = [];
  const measured = new Set(jobIds);
  const seen = new Set<string>();
  let unmeasured = 0;
  let repeated = 0;
  for (const r of requests) {
    const check = verifySignatures({ secret, headers: r.headers, rawBody: r.rawBody });
    if (!check.xWebhookSignature || !check.standardWebhooks)
      throw new Error(`delay: a delivery is not signed right: ${JSON.stringify(check)}`);
    const jobId = (JSON.parse(r.body) as FileCompletedEvent).data.job_id;
    // A warm-up job's delivery retried after the reset (its first attempt failed, say, timed out on a cold
    // machine) is no measured job's; a measured job delivered again counts from its first receipt.
    if (!measured.has(jobId)) {
      unmeasured += 1;
      continue;
    }
    if (seen.has(jobId)) {
      repeated += 1;
      continue;
    }
    seen.add(jobId);
    const done = completed.get(jobId);
    const delivery = deliveries.get(jobId);
    const streamed = onStream.get(jobId);
    if (done === undefined || delivery === undefined || streamed === undefined)
      throw new Error(
        `delay: job ${jobId} has ${done === undefined ? 'no' : 'a'} completion, ` +
          `${delivery === undefined ? 'no' : 'a'} first attempt and ` +
          `${streamed === undefined ? 'no' : 'an'} event on the stream; received for it: ` +
          `${requests.filter((q) => q.body.includes(jobId)).length} request(s)`,
      );
    const received = r.receivedAt.getTime();
    perJob.push({
      jobId,
      delayMs: round(received - done, 1),
      stagesMs: {
        'completed -> event on EVENTS (file-jobs)': round(streamed - done, 1),
        'event -> delivery row (webhooks intake)': round(delivery.made - streamed, 1),
        'delivery row -> attempt start (hand-over)': round(delivery.attempted - delivery.made, 1),
        'attempt start -> received (sign, HTTPS)': round(received - delivery.attempted, 1),
      },
    });
  }
  if (perJob.length !== jobIds.length)
    throw new Error(`delay: ${perJob.length} deliveries for ${jobIds.length} jobs`);
  if (unmeasured > 0 || repeated > 0)
    log(`delay: left out ${unmeasured} delivery(ies) of warm-up jobs and ${repeated} repeated delivery(ies)`);
  const delays = perJob.map((j) => j.delayMs);
  const stages: DelayFigures['stages'] = {};
  for (const stage of Object.keys(perJob[0]!.stagesMs)) {
    const values = perJob.map((j) => j.stagesMs[stage]!);
    stages[stage] = { p50Ms: round(percentile(values, 50), 1), p99Ms: round(percentile(values, 99), 1) };
  }
  return {
    jobs: perJob.length,
    p50Ms: round(percentile(delays, 50), 1),
    p99Ms: round(percentile(delays, 99), 1),
    maxMs: round(Math.max(...delays), 1),
    stages,
    perJob,
    cpu: {},
  };
}

/**
 * CPU of the PostgreSQL backends serving one application (by application_name) in the suite's database: the
 * `postgres` figure of CpuMeter counts every backend on the machine, other people's tests included.
 */
class BackendMeter {
  private readonly before = new Map<number, number>();
  private readonly started = Date.now();

  private constructor(
    private readonly db: Client,
    private readonly application: string,
  ) {}

  static async start(db: Client, application: string): Promise<BackendMeter> {
    const meter = new BackendMeter(db, application);
    for (const pid of await meter.pids()) meter.before.set(pid, cpuSeconds([pid]));
    return meter;
  }

  /** Cores; a backend that opened during the run counts in full, one that closed is lost (rare). */
  async stop(): Promise<number> {
    let used = 0;
    for (const pid of new Set([...this.before.keys(), ...(await this.pids())]))
      used += cpuSeconds([pid]) - (this.before.get(pid) ?? 0);
    return round(Math.max(0, used) / ((Date.now() - this.started) / 1000), 2);
  }

  private async pids(): Promise<number[]> {
    const { rows } = await this.db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
      [this.application],
    );
    return rows.map((r) => r.pid);
  }
}

/** CPU milliseconds per delivery of the named processes, from cores over `ms`. */
function perDelivery(
  cpu: Record<string, number>,
  ms: number,
  deliveries: number,
  names: string[],
): Record<string, number> {
  return Object.fromEntries(names.map((n) => [n, round(((cpu[n] ?? 0) * ms) / deliveries, 3)]));
}

/** The busiest few of a `pgBackends` record, in one line. */
function describeBackends(backends: Record<string, number>, top = 5): string {
  const entries = Object.entries(backends).sort((a, b) => b[1] - a[1]);
  const total = round(
    entries.reduce((sum, [, n]) => sum + n, 0),
    2,
  );
  return `${total} in all; ${entries
    .slice(0, top)
    .map(([key, n]) => `${n} ${key}`)
    .join(' | ')}`;
}

const cleanup = new Cleanup();
// The product load's minute and its set-up come on top of the other two parts' four minutes.
void cleanup.run('webhooks', RUN.has('product') ? 480_000 : 240_000, () => main(cleanup));
