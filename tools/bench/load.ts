// autocannon runs and process CPU accounting shared by the benchmarks.
import { readFileSync, readdirSync } from 'node:fs';
import autocannon from 'autocannon';
import { assertLoopback, round } from './common';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds; the run stops by itself after this. */
  duration?: number;
  /** Requests in total; the run stops after exactly this many (`duration` is then ignored). */
  amount?: number;
  /** Cap on requests of a timed run: it stops after `duration` or this many, whichever comes first. */
  maxRequests?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Builds each request's body (POST): called once per request. */
  body?: () => string;
  /** Headers added to each request, per request (e.g. rotating API keys). */
  headersFor?: () => Record<string, string>;
  /** Sees each reply (status and body); only set when the benchmark checks replies. */
  onResponse?: (status: number, body: string) => void;
  /** Processes whose CPU time is measured during the run (the server side), by name. */
  pids?: Record<string, number>;
}

export interface LoadFigures {
  requests: number;
  seconds: number;
  /** Requests per second over the whole run. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU in cores during the run: each named process, `bench` (this process) and `machine` (see CpuMeter). */
  cpu: Record<string, number>;
}

export async function load(options: LoadOptions): Promise<LoadFigures> {
  assertLoopback('benchmark target', options.url);
  const meter = new CpuMeter(options.pids ?? {});
  const started = process.hrtime.bigint();
  const makeBody = options.body;
  const headersFor = options.headersFor;
  const perRequest =
    makeBody || headersFor
      ? (req: autocannon.Request): autocannon.Request => ({
          ...req,
          ...(makeBody ? { body: makeBody() } : {}),
          ...(headersFor ? { headers: { ...req.headers, ...headersFor() } } : {}),
        })
      : undefined;
  const onResponse = options.onResponse;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    ...(options.duration !== undefined ? { duration: options.duration } : {}),
    ...(options.amount !== undefined ? { amount: options.amount } : {}),
    ...(options.maxRequests !== undefined ? { maxOverallRequests: options.maxRequests } : {}),
    timeout: 30,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    requests: [
      {
        ...(perRequest ? { setupRequest: perRequest } : {}),
        ...(onResponse ? { onResponse: (status: number, body: string) => onResponse(status, body) } : {}),
      },
    ],
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = meter.stop();
  const requests = result.requests.total;
  return {
    requests,
    seconds: round(seconds, 3),
    rps: round(requests / seconds, 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    cpu,
  };
}

/** Fails when a run saw errors, timeouts or non-2xx replies: its figures would not mean anything. */
export function assertClean(what: string, figures: LoadFigures): void {
  if (figures.non2xx || figures.errors || figures.timeouts || figures.requests === 0) {
    throw new Error(
      `${what}: ${figures.requests} requests, ${figures.non2xx} non-2xx, ${figures.errors} errors, ` +
        `${figures.timeouts} timeouts: the figures are not valid`,
    );
  }
}

const TICKS_PER_SECOND = 100;

/** Shared infrastructure whose CPU is reported too (PostgreSQL: every backend, whichever database). */
const INFRA = ['postgres', 'nats-server'];
const INFRA_LABEL: Record<string, string> = { postgres: 'postgres', 'nats-server': 'nats' };

/** Process ids by command name (Linux /proc/<pid>/comm), for the given names. */
function processesNamed(names: readonly string[]): Record<string, number[]> {
  const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return out;
  }
  for (const pid of entries) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (comm in out) out[comm].push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Busy CPU seconds of the whole machine so far (all processes, every core; Linux /proc/stat). */
export function machineBusySeconds(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...: busy = everything but idle and iowait.
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return (total - fields[3] - fields[4]) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU used during a phase, in cores (1.0 = one core busy all the time): each named process, PostgreSQL and
 * NATS, this process (`bench`: the load generator, plus the mail world where there is one), the whole
 * machine, and `other` = machine less all of those: other work on the machine competing for the cores,
 * which makes a run's figures less trustworthy.
 */
export class CpuMeter {
  private readonly started = process.hrtime.bigint();
  private readonly before: Sample;

  constructor(private readonly pids: Record<string, number>) {
    this.before = this.sample();
  }

  private sample(): Sample {
    const named: Record<string, Map<number, number>> = {};
    for (const [name, pid] of Object.entries(this.pids)) named[name] = new Map([[pid, cpuSeconds([pid])]]);
    for (const [name, pids] of Object.entries(processesNamed(INFRA))) {
      named[INFRA_LABEL[name]] = new Map(pids.map((pid) => [pid, cpuSeconds([pid])]));
    }
    const self = process.cpuUsage();
    return { named, bench: (self.user + self.system) / 1e6, machine: machineBusySeconds() };
  }

  /** Cores per name, plus `other`: the machine less every process named (other work on the machine). */
  stop(): Record<string, number> {
    const seconds = Number(process.hrtime.bigint() - this.started) / 1e9;
    const after = this.sample();
    const cores: Record<string, number> = {};
    for (const [name, pids] of Object.entries(after.named)) {
      let used = 0;
      // A process that started during the run counts in full; one that ended during it is lost (undercount).
      for (const [pid, secs] of pids) used += secs - (this.before.named[name]?.get(pid) ?? 0);
      cores[name] = round(Math.max(0, used) / seconds, 2);
    }
    cores.bench = round((after.bench - this.before.bench) / seconds, 2);
    cores.machine = round((after.machine - this.before.machine) / seconds, 2);
    const known = Object.entries(cores)
      .filter(([k]) => k !== 'machine')
      .reduce((sum, [, v]) => sum + v, 0);
    cores.other = round(Math.max(0, cores.machine - known), 2);
    return cores;
  }
}

interface Sample {
  named: Record<string, Map<number, number>>;
  bench: number;
  machine: number;
}

/** user + system CPU seconds of the given processes so far (Linux /proc; 0 where unavailable). */
export function cpuSeconds(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (which may contain spaces) start at ") ".
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      // Not Linux, or the process is gone: report what we can.
    }
  }
  return total;
}
