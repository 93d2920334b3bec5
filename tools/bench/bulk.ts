// Benchmark "bulk": POST /v1/verify/bulk with batches of 100 new addresses, MX-only (check_smtp false), through
// gateway -> verifier (cache lookup, one reservation, verification, result store, settle), against
// VerificationEngine.verifyMany called in this process on the same batches, as many at once and with the same
// per-batch concurrency as the verifier uses. Both resolve against one mail world (real DNS on 127.0.0.1) whose
// domain facts are warmed on both sides first: the difference is the service's own work per batch.
import type { VerificationStatus } from '@emailverify/contracts';
import { type MailWorld, mailWorldEnv, TestSuite } from '@emailverify/testing';
import {
  Cleanup,
  benchDomain,
  startMailboxWorld,
  mailWorldEngine,
  assertLocalInfrastructure,
  log,
  machine,
  median,
  medianCpu,
  disturbed,
  printTable,
  warnIfBusy,
  quick,
  round,
  writeReport,
} from './common';
import { LookupStandIns } from './lookup-stand-ins';
import { type DatabaseFigures, DatabaseMeter } from './db-meter';
import { CpuMeter, assertClean, load } from './load';
import { profileEnv, profiled } from './profile';

/** Gravatar and RDAP stand-ins, answering after `--lookup-delay-ms` (50 by default): the services look both up. */
let lookups: LookupStandIns | undefined;
const DOMAINS = 300;
const BATCH = 100;
/** Batches in flight at once, on both sides. */
const CONNECTIONS = Number(process.env.BENCH_CONCURRENCY || 4);
/** The verifier's VERIFY_BULK_CONCURRENCY (its default), used by the library side too. */
const PER_BATCH_CONCURRENCY = Number(process.env.VERIFY_BULK_CONCURRENCY || 10);
const MEASURE_S = quick ? 3 : 10;
const ROUNDS = quick ? 1 : 3;
const EXTRA_ROUNDS = quick ? 0 : 1;
/** The library repeats the round's batches until this many seconds have passed. */
const LIBRARY_MIN_S = quick ? 1 : 3;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'info';

const address = (series: string, n: number) => `u${n}.${series}@${benchDomain(n % DOMAINS)}`;
const batchOf = (series: string, b: number) =>
  Array.from({ length: BATCH }, (_, i) => address(series, b * BATCH + i));

interface SideFigures {
  addresses: number;
  seconds: number;
  addressesPerSecond: number;
  p50Ms?: number;
  p99Ms?: number;
  passes?: number;
  statuses: Record<string, number>;
  /** In cores; the service side adds `pgdb`, the backends of its own database (DatabaseMeter). */
  cpu: Record<string, number>;
  /** The service side: its database per address (backend CPU, transactions, rows, scans). */
  db?: DatabaseFigures;
}

function expectAllValid(what: string, statuses: Record<string, number>, total: number): void {
  if ((statuses.valid ?? 0) !== total)
    throw new Error(`${what}: expected every address valid, got ${JSON.stringify(statuses)} of ${total}`);
}

/** The service verifies one series of batches until `limit` (a duration in seconds or a number of batches). */
type Side = (series: string, limit: { duration?: number; amount?: number }) => Promise<SideFigures>;
/** The library verifies the first `batches` batches of one series. */
type LibrarySide = (series: string, batches: number) => Promise<SideFigures>;

type Runs = Record<'service' | 'library', SideFigures[]>;

async function main(cleanup: Cleanup): Promise<void> {
  assertLocalInfrastructure();
  log(
    `bulk: batches of ${BATCH} new addresses over ${DOMAINS} domains, ${CONNECTIONS} batches in flight, ` +
      `${PER_BATCH_CONCURRENCY} addresses at once per batch, ${ROUNDS} round(s) of ${MEASURE_S} s`,
  );
  const world = await startMailboxWorld(cleanup, DOMAINS);
  lookups = await LookupStandIns.start(cleanup);
  const { suite, apiKey, pids } = await startInstallation(world, cleanup, lookups);
  const meter = await DatabaseMeter.open(suite.databaseUrl);
  cleanup.add('database meter', () => meter.close());
  const service = serviceSide(suite, apiKey, pids, meter);
  const library = librarySide(mailWorldEngine(world), pids);
  log('warming up (every domain at least 3 times on each side)…');
  const warm = await service('warm', { amount: (DOMAINS * 3) / BATCH });
  expectAllValid('service warm-up', warm.statuses, warm.addresses);
  const warmLib = await library('warm', (DOMAINS * 3) / BATCH);
  expectAllValid('library warm-up', warmLib.statuses, warmLib.addresses);
  const { runs, discarded } = await measureRounds(service, library);
  // --profile: one more service round with the profiler on in every service, outside the figures.
  await profiled(suite, ['gateway0', 'credits', 'verifier'], () =>
    service('profile', { duration: MEASURE_S }),
  );
  report(runs, discarded);
}

/** Credits, the verifier and a gateway on the mail world, one account with credits enough for every round. */
async function startInstallation(
  world: MailWorld,
  cleanup: Cleanup,
  standIns: LookupStandIns,
): Promise<{ suite: TestSuite; apiKey: string; pids: Record<string, number> }> {
  log('starting credits, verifier and gateway (own database and NATS namespace)…');
  const suite = await TestSuite.start({
    services: ['credits', 'verifier'],
    env: {
      LOG_LEVEL,
      ...mailWorldEnv(world),
      DNS_TIMEOUT_MS: '3000',
      VERIFY_BULK_CONCURRENCY: String(PER_BATCH_CONCURRENCY),
      RATE_LIMIT_BULK: '1000000000',
      RATE_LIMIT_OTHER: '1000000000',
      // Production defaults: Gravatar and RDAP set (to the stand-ins). A bulk request asks neither.
      ...standIns.env(),
      ...profileEnv(),
    },
  });
  cleanup.add('suite', () => suite.stop());
  const { apiKey } = await suite.createAccount({ credits: 1_000_000_000, name: 'bench bulk' });
  const pids = {
    gateway: suite.processes.get('gateway0')!.child.pid!,
    credits: suite.processes.get('credits')!.child.pid!,
    verifier: suite.processes.get('verifier')!.child.pid!,
  };
  return { suite, apiKey, pids };
}

/** The service: POST /v1/verify/bulk through the gateway, CONNECTIONS batches in flight. */
function serviceSide(
  suite: TestSuite,
  apiKey: string,
  pids: Record<string, number>,
  meter: DatabaseMeter,
): Side {
  return async (series, limit) => {
    let b = 0;
    const statuses: Record<string, number> = {};
    const dbBefore = await meter.sample();
    const figures = await load({
      pids,
      url: `${suite.gatewayUrl()}/v1/verify/bulk`,
      method: 'POST',
      connections: CONNECTIONS,
      headers: { 'SVC-API-KEY': apiKey, 'Content-Type': 'application/json' },
      ...limit,
      body: () => JSON.stringify({ emails: batchOf(series, b++), check_smtp: false }),
      onResponse: (status, body) => {
        if (status !== 200) {
          statuses[`http ${status}`] = (statuses[`http ${status}`] ?? 0) + 1;
          return;
        }
        const results = (JSON.parse(body) as { data: { results: Array<{ status: VerificationStatus }> } })
          .data.results;
        for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      },
    });
    assertClean(`service ${series}`, figures);
    const addresses = figures.requests * BATCH;
    const db = await meter.stop(dbBefore, figures.seconds, addresses);
    return {
      addresses,
      seconds: figures.seconds,
      addressesPerSecond: round(addresses / figures.seconds, 1),
      p50Ms: figures.p50Ms,
      p99Ms: figures.p99Ms,
      statuses,
      cpu: { ...figures.cpu, pgdb: db.cores },
      db,
    };
  };
}

/** The same batches verified by the library, CONNECTIONS at once, repeated until LIBRARY_MIN_S have passed. */
function librarySide(engine: ReturnType<typeof mailWorldEngine>, pids: Record<string, number>): LibrarySide {
  return async (series, batches) => {
    const lists = Array.from({ length: batches }, (_, b) => batchOf(series, b));
    const statuses: Record<string, number> = {};
    let done = 0;
    let passes = 0;
    const meter = new CpuMeter(pids);
    const started = performance.now();
    while (passes === 0 || performance.now() - started < LIBRARY_MIN_S * 1000) {
      let next = 0;
      const worker = async () => {
        while (next < lists.length) {
          const results = await engine.verifyMany(
            lists[next++]!,
            { checkSmtp: false },
            { concurrency: PER_BATCH_CONCURRENCY },
          );
          for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          done += results.length;
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONNECTIONS, lists.length) }, worker));
      passes++;
    }
    const seconds = (performance.now() - started) / 1000;
    return {
      addresses: done,
      seconds: round(seconds, 3),
      addressesPerSecond: round(done / seconds, 1),
      passes,
      statuses,
      cpu: meter.stop(),
    };
  };
}

/** ROUNDS rounds of both sides on the same number of batches; a disturbed round runs again (EXTRA_ROUNDS). */
async function measureRounds(
  service: Side,
  library: LibrarySide,
): Promise<{ runs: Runs; discarded: Array<Record<string, SideFigures>> }> {
  const runs: Runs = { service: [], library: [] };
  const discarded: Array<Record<string, SideFigures>> = [];
  for (let r = 0; runs.service.length < ROUNDS; r++) {
    const s = await service(`r${r}`, { duration: MEASURE_S });
    const l = await library(`r${r}`, s.addresses / BATCH);
    for (const [side, f] of [
      ['service', s],
      ['library', l],
    ] as const) {
      expectAllValid(`${side} round ${r + 1}`, f.statuses, f.addresses);
      log(
        `round ${r + 1} ${side.padEnd(7)} ${f.addresses} addresses${f.passes ? ` (${f.passes} passes)` : ''} in ` +
          `${f.seconds} s = ${f.addressesPerSecond}/s` +
          (f.p99Ms !== undefined ? `  batch p50 ${f.p50Ms} ms  p99 ${f.p99Ms} ms` : '') +
          `  CPU (cores) ${JSON.stringify(f.cpu)}`,
      );
      if (f.db) log(`  database per address: ${JSON.stringify(f.db.perOperation)}`);
    }
    if (discarded.length < EXTRA_ROUNDS && disturbed([s.cpu, l.cpu])) {
      log(`round ${r + 1} disturbed by other work on the machine: running it again`);
      discarded.push({ service: s, library: l });
      continue;
    }
    runs.service.push(s);
    runs.library.push(l);
  }
  return { runs, discarded };
}

/** The table and the report file: the median of each side and the median of the rounds' ratios. */
function report(runs: Runs, discarded: Array<Record<string, SideFigures>>): void {
  const summary = (list: SideFigures[]) => ({
    addressesPerSecond: round(median(list.map((f) => f.addressesPerSecond)), 1),
    cpu: medianCpu(list.map((f) => f.cpu)),
  });
  const svc = summary(runs.service);
  const lib = summary(runs.library);
  const ratio = round(
    median(runs.service.map((f, i) => f.addressesPerSecond / runs.library[i]!.addressesPerSecond)),
    3,
  );
  warnIfBusy([...runs.service, ...runs.library].map((f) => f.cpu));
  printTable(
    [
      `verify bulk, ${BATCH} new addresses a batch, MX-only`,
      'addresses/s',
      'batch p99 ms',
      'gw+cr+ver CPU',
      'pg+nats CPU',
      'bench CPU',
      'other CPU',
    ],
    [
      [
        'service via gateway (median)',
        svc.addressesPerSecond,
        round(median(runs.service.map((f) => f.p99Ms!)), 1),
        `${svc.cpu.gateway}+${svc.cpu.credits}+${svc.cpu.verifier}`,
        round(svc.cpu.postgres + svc.cpu.nats, 2),
        svc.cpu.bench,
        svc.cpu.other,
      ],
      ['library in-process (median)', lib.addressesPerSecond, '', '', '', lib.cpu.bench, lib.cpu.other],
      ['ratio service / library', ratio, '', '', '', '', ''],
    ],
  );
  const file = writeReport('bulk', {
    benchmark: 'bulk',
    date: new Date().toISOString(),
    machine: machine(),
    settings: {
      endpoint: 'POST /v1/verify/bulk {check_smtp:false}',
      batch: BATCH,
      domains: DOMAINS,
      batchesInFlight: CONNECTIONS,
      perBatchConcurrency: PER_BATCH_CONCURRENCY,
      measureSeconds: MEASURE_S,
      rounds: ROUNDS,
      serviceLogLevel: LOG_LEVEL,
      quick,
      lookupStandIns: { delayMs: lookups?.delayMs, requests: lookups?.requests() },
    },
    service: { ...svc, runs: runs.service },
    library: { ...lib, runs: runs.library },
    discardedRounds: discarded,
    ratio: {
      throughput: ratio,
      meaning: 'per round: service addresses/s / library addresses/s; the median (target at least 0.5)',
    },
  });
  log(`figures written to ${file}`);
}

const cleanup = new Cleanup();
void cleanup.run('bulk', 170_000, () => main(cleanup));
