// Benchmark "single": POST /v1/verify/single, MX-only (check_smtp false), uncached (every address distinct, so
// the verifier's result cache never answers), through gateway -> verifier -> credits (reserve) -> verifier ->
// credits (settle), for one account and for eight accounts, against GET /v1/verify/disposable through the same
// gateway in the same round (the gateway alone: auth, rate limit, styles, logging, no hop). The ratios are what
// verification, credits and the result cache add to a request. Addresses resolve against one mail world (real
// DNS on 127.0.0.1) of a few hundred domains, whose facts (MX and host addresses) are warmed first, as in a
// service that has been up for a while.
import type { VerificationStatus } from '@emailverify/contracts';
import { type MailWorld, mailWorldEnv, TestSuite } from '@emailverify/testing';
import {
  Cleanup,
  benchDomain,
  startMailboxWorld,
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
import { assertClean, load } from './load';
import { profileEnv, profiled } from './profile';

/** Gravatar and RDAP stand-ins, answering after `--lookup-delay-ms` (50 by default): the services look both up. */
let lookups: LookupStandIns | undefined;
const DOMAINS = 300;
const CONNECTIONS = Number(process.env.BENCH_CONCURRENCY || 32);
const MEASURE_S = quick ? 3 : 8;
const ROUNDS = quick ? 1 : 3;
/** Rounds run again at most when other work on the machine disturbed them (keeps the run under 2 minutes). */
const EXTRA_ROUNDS = quick ? 0 : 1;
/** Hard cap on requests per measured run (the run also stops after MEASURE_S). */
const MAX_PER_RUN = 200_000;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'info';
/** The spread-out side: this many accounts (one key each), the requests rotating over them. */
const ACCOUNTS = Math.max(2, Math.min(64, Number(process.env.BENCH_ACCOUNTS || 8)));
const DISPOSABLE_PATH = `/v1/verify/disposable?email=${encodeURIComponent('someone@mailinator.com')}`;

/** The n-th address of a series: distinct local parts, spread over every domain. */
const address = (series: string, n: number) => `u${n}.${series}@${benchDomain(n % DOMAINS)}`;

interface SideFigures {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  /**
   * CPU in cores: gateway, credits and verifier, PostgreSQL (every backend on the machine), `pgdb` (the
   * backends of this benchmark's database alone), NATS, `bench` (this process) and `other`.
   */
  cpu: Record<string, number>;
  /** This benchmark's database per request: backend CPU, transactions, rows, scans (DatabaseMeter). */
  db: DatabaseFigures;
}

const SIDES = ['disposable', 'one', 'many'] as const;
type Side = (typeof SIDES)[number];
type Runs = Record<Side, SideFigures[]>;
const LABELS: Record<Side, string> = {
  disposable: 'GET /v1/verify/disposable (median)',
  one: 'verify single, 1 account (median)',
  many: `verify single, ${ACCOUNTS} accounts (median)`,
};

function expectAllValid(what: string, statuses: Record<string, number>, total: number): void {
  const valid = statuses['valid/mx_found'] ?? 0;
  if (valid !== total) {
    throw new Error(
      `${what}: expected every address valid/mx_found, got ${JSON.stringify(statuses)} of ${total}`,
    );
  }
}

type Measure = (
  side: Side,
  series: string,
  limit: { duration?: number; amount?: number },
) => Promise<SideFigures>;

async function main(cleanup: Cleanup): Promise<void> {
  assertLocalInfrastructure();
  log(
    `single: ${DOMAINS} domains, ${CONNECTIONS} concurrent, 1 and ${ACCOUNTS} accounts, ${ROUNDS} round(s) of ` +
      `${MEASURE_S} s per side, every address distinct`,
  );
  const world = await startMailboxWorld(cleanup, DOMAINS);
  lookups = await LookupStandIns.start(cleanup);
  const { suite, keys } = await startInstallation(world, cleanup, lookups);
  const meter = await DatabaseMeter.open(suite.databaseUrl);
  cleanup.add('database meter', () => meter.close());
  const measure = sides(suite, keys, meter);
  log('warming up (every domain at least 3 times, and the disposable route)…');
  for (const side of SIDES) {
    const warm = await measure(side, `warm${side}`, { amount: DOMAINS * 3 });
    if (side !== 'disposable') expectAllValid(`${side} warm-up`, warm.statuses, warm.requests);
  }
  const { runs, discarded } = await measureRounds(measure);
  // --profile: one more run of one account with the profiler on in every service, outside the figures.
  await profiled(suite, ['gateway0', 'credits', 'verifier'], () =>
    measure('one', 'profile', { duration: MEASURE_S }),
  );
  report(runs, discarded);
}

/** Credits, verifier and a gateway, and ACCOUNTS accounts with a key each. */
async function startInstallation(
  world: MailWorld,
  cleanup: Cleanup,
  standIns: LookupStandIns,
): Promise<{ suite: TestSuite; keys: string[] }> {
  log('starting credits, verifier and gateway (own database and NATS namespace)…');
  const suite = await TestSuite.start({
    services: ['credits', 'verifier'],
    env: {
      LOG_LEVEL,
      ...mailWorldEnv(world),
      DNS_TIMEOUT_MS: '3000',
      RATE_LIMIT_SINGLE: '1000000000',
      RATE_LIMIT_DISPOSABLE: '1000000000',
      RATE_LIMIT_OTHER: '1000000000',
      // Production defaults: Gravatar and RDAP set (to the stand-ins), which a single verification looks up.
      ...standIns.env(),
      ...profileEnv(),
    },
  });
  cleanup.add('suite', () => suite.stop());
  const keys: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    keys.push((await suite.createAccount({ credits: 1_000_000_000, name: `bench single ${i}` })).apiKey);
  }
  return { suite, keys };
}

/** One side under load: the disposable route, or single verifications of one account or of all of them. */
function sides(suite: TestSuite, keys: string[], meter: DatabaseMeter): Measure {
  const pids = {
    gateway: suite.processes.get('gateway0')!.child.pid!,
    credits: suite.processes.get('credits')!.child.pid!,
    verifier: suite.processes.get('verifier')!.child.pid!,
  };
  return async (side, series, limit) => {
    let n = 0;
    let keyIndex = 0;
    const statuses: Record<string, number> = {};
    const single = side !== 'disposable';
    const dbBefore = await meter.sample();
    const figures = await load({
      pids,
      url: `${suite.gatewayUrl()}${single ? '/v1/verify/single' : DISPOSABLE_PATH}`,
      method: single ? 'POST' : 'GET',
      connections: CONNECTIONS,
      headers: { 'SVC-API-KEY': keys[0], 'Content-Type': 'application/json' },
      ...limit,
      maxRequests: MAX_PER_RUN,
      ...(side === 'many' ? { headersFor: () => ({ 'SVC-API-KEY': keys[keyIndex++ % keys.length] }) } : {}),
      ...(single ? { body: () => JSON.stringify({ email: address(series, n++), check_smtp: false }) } : {}),
      onResponse: (status, body) => {
        let key = `http ${status}`;
        if (status === 200 && single) {
          const data = (JSON.parse(body) as { data?: { status?: VerificationStatus; reason?: string } }).data;
          key = `${data?.status}/${data?.reason}`;
        }
        statuses[key] = (statuses[key] ?? 0) + 1;
      },
    });
    assertClean(`${side} ${series}`, figures);
    const db = await meter.stop(dbBefore, figures.seconds, figures.requests);
    return {
      requests: figures.requests,
      seconds: figures.seconds,
      perSecond: figures.rps,
      p50Ms: figures.p50Ms,
      p99Ms: figures.p99Ms,
      statuses,
      cpu: { ...figures.cpu, pgdb: db.cores },
      db,
    };
  };
}

/**
 * ROUNDS rounds of the three sides, each single side on its own addresses; a round that other work on the
 * machine disturbed is run again, at most EXTRA_ROUNDS times.
 */
async function measureRounds(
  measure: Measure,
): Promise<{ runs: Runs; discarded: Array<Record<Side, SideFigures>> }> {
  const runs: Runs = { disposable: [], one: [], many: [] };
  const discarded: Array<Record<Side, SideFigures>> = [];
  for (let r = 0; runs.one.length < ROUNDS; r++) {
    const round1 = {} as Record<Side, SideFigures>;
    for (const side of SIDES) {
      const figures = await measure(side, `r${r}${side}`, { duration: MEASURE_S });
      if (side !== 'disposable') expectAllValid(`${side} round ${r + 1}`, figures.statuses, figures.requests);
      log(
        `round ${r + 1} ${side.padEnd(10)} ${figures.requests} requests in ${figures.seconds} s = ` +
          `${figures.perSecond}/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms  CPU (cores) ${JSON.stringify(figures.cpu)}`,
      );
      if (side !== 'disposable') log(`  database per request: ${JSON.stringify(figures.db.perOperation)}`);
      round1[side] = figures;
    }
    if (discarded.length < EXTRA_ROUNDS && disturbed(SIDES.map((s) => round1[s].cpu))) {
      log(`round ${r + 1} disturbed by other work on the machine: running it again`);
      discarded.push(round1);
      continue;
    }
    for (const side of SIDES) runs[side].push(round1[side]);
  }
  return { runs, discarded };
}

/** Medians of the rounds, the table with both ratios, and every figure in .data/bench/single.json. */
function report(runs: Runs, discarded: Array<Record<Side, SideFigures>>): void {
  const summary = (list: SideFigures[]) => ({
    perSecond: round(median(list.map((f) => f.perSecond)), 1),
    p50Ms: round(median(list.map((f) => f.p50Ms)), 2),
    p99Ms: round(median(list.map((f) => f.p99Ms)), 2),
    cpu: medianCpu(list.map((f) => f.cpu)),
  });
  const s = { disposable: summary(runs.disposable), one: summary(runs.one), many: summary(runs.many) };
  // Ratios per round (the sides of a round share the machine's state), then their median.
  const ratio = (side: Side, what: 'perSecond' | 'p99Ms') =>
    round(median(runs[side].map((f, i) => f[what] / runs.disposable[i]![what])), 3);
  const ratios = {
    one: { throughput: ratio('one', 'perSecond'), p99: ratio('one', 'p99Ms') },
    many: { throughput: ratio('many', 'perSecond'), p99: ratio('many', 'p99Ms') },
  };
  warnIfBusy(SIDES.flatMap((side) => runs[side].map((f) => f.cpu)));
  printTable(
    [
      'POST /v1/verify/single, MX-only, uncached',
      'req/s',
      'p50 ms',
      'p99 ms',
      'gw+cr+ver CPU',
      'pg+nats CPU',
      'own db CPU',
      'bench CPU',
      'other CPU',
    ],
    [
      ...SIDES.map((side) => {
        const f = s[side];
        return [
          LABELS[side],
          f.perSecond,
          f.p50Ms,
          f.p99Ms,
          `${f.cpu.gateway}+${f.cpu.credits}+${f.cpu.verifier}`,
          round(f.cpu.postgres + f.cpu.nats, 2),
          f.cpu.pgdb ?? 0,
          f.cpu.bench,
          f.cpu.other,
        ];
      }),
      ['ratio 1 account / disposable', ratios.one.throughput, '', ratios.one.p99, '', '', '', '', ''],
      [
        `ratio ${ACCOUNTS} accounts / disposable`,
        ratios.many.throughput,
        '',
        ratios.many.p99,
        '',
        '',
        '',
        '',
        '',
      ],
    ],
  );
  const file = writeReport('single', {
    benchmark: 'single',
    date: new Date().toISOString(),
    machine: machine(),
    settings: {
      endpoint: 'POST /v1/verify/single {check_smtp:false} vs GET /v1/verify/disposable, same gateway',
      domains: DOMAINS,
      concurrency: CONNECTIONS,
      accounts: ACCOUNTS,
      measureSeconds: MEASURE_S,
      rounds: ROUNDS,
      warmupRequestsPerSide: DOMAINS * 3,
      serviceLogLevel: LOG_LEVEL,
      quick,
      lookupStandIns: { delayMs: lookups?.delayMs, requests: lookups?.requests() },
    },
    ...Object.fromEntries(SIDES.map((side) => [side, { ...s[side], runs: runs[side] }])),
    discardedRounds: discarded,
    ratios: {
      ...ratios,
      meaning:
        'per round: single req/s / disposable req/s (target at least 0.5) and single p99 / disposable p99 ' +
        '(target at most 3); the median of the rounds',
    },
  });
  log(`figures written to ${file}`);
}

const cleanup = new Cleanup();
void cleanup.run('single', 170_000, () => main(cleanup));
