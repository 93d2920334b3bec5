// Benchmark "file": a generated CSV of 100,000 rows (1,000,000 with `--large`) over about
// 20,000 mail-world domains, 10% of the rows repeating an earlier row's address, MX-only (check_smtp false):
// the time from the start of the upload to `completed`, and the peak RSS of every process, against the floor
// (file-floor.ts: one process reading the same CSV, resolving MX once per unique domain through the same DNS
// server, writing the result CSV); then the service again with two verifier processes. For information, this
// process also parses a file of the same shape with the files library and verifies it with the verification
// library. A first, separate upload of just under 100 MiB (padded rows, one distinct address) measures the
// gateway's RSS while it streams a file of the maximum size.
//
// Every phase has its own addresses (a prefix per phase), so the verifier's result cache never answers, and
// its own cold verifier processes (restarted before the phase), so the domain cache starts empty in every
// phase, as it does for the library's fresh engine.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { MailWorld, mailWorldEnv, TestSuite, freePort, launch, waitUntilReady } from '@emailverify/testing';
import { openTable } from '@emailverify/files';
import {
  benchRoot,
  Cleanup,
  benchDomain,
  mailWorldEngine,
  assertLocalInfrastructure,
  assertLoopback,
  log,
  machine,
  printTable,
  quick,
  round,
  sleep,
  warnIfBusy,
  writeReport,
} from './common';
import { CpuMeter } from './load';
import { LookupStandIns } from './lookup-stand-ins';
import { profileEnv, profiled, PROFILE } from './profile';
import { RssSampler, peakRssFromMetrics, peakRssMiB, resetPeakRss } from './memory';

/** Gravatar and RDAP stand-ins, answering after `--lookup-delay-ms` (50 by default): the services look both up. */
let lookups: LookupStandIns | undefined;

const LARGE = process.argv.includes('--large');
/** `BENCH_ROWS` overrides the row count (for exploring; the reported figures use the defaults). */
const ROWS = Number(process.env.BENCH_ROWS) || (quick ? 10_000 : LARGE ? 1_000_000 : 100_000);
/**
 * `BENCH_PHASES=s1` runs only the one-verifier phase, after the upload probe; `probe` in the list keeps the probe
 * when other phases are named, so `BENCH_PHASES=s1` without it skips the probe (for exploring). Phases run in the
 * order named; `s1b`, `s2b` (any letter) run one and two verifiers again on a file of new addresses, for
 * alternating runs (the targets take the fastest run of each count).
 */
const PHASES = (process.env.BENCH_PHASES || 'probe,s1,s2').split(',');
/** `BENCH_DOMAINS` overrides the domain count (for exploring). */
const DOMAINS = Number(process.env.BENCH_DOMAINS) || (quick ? 2_000 : 20_000);
/** Every DUPLICATE_EVERY-th row repeats an earlier row's address: 10% duplicate rows. */
const DUPLICATE_EVERY = 10;
/** The distinct addresses of a file: what the service verifies and charges. */
const UNIQUE = ROWS - Math.floor(ROWS / DUPLICATE_EVERY);
/**
 * Floor runs: it takes about a second, so a few runs cost little. The fastest is reported: the floor is what
 * the machine can do at best, and other work on the machine only ever slows a run down.
 */
const FLOOR_RUNS = quick ? 1 : 3;
/** The service's target: upload to `completed` within this many times the floor. */
const FLOOR_RATIO_TARGET = 8;
/** The library side: rows handed to verifyMany at a time, and its concurrency. */
const LIBRARY_BATCH = 2_000;
const LIBRARY_CONCURRENCY = 50;
/** The gateway's default upload limit (FILE_MAX_BYTES); the probe file stays 1 MiB under it. */
const MAX_UPLOAD_BYTES = 104_857_600;
const PROBE_BYTES = quick ? 16 * 2 ** 20 : MAX_UPLOAD_BYTES - 2 ** 20;
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'info';
/** Tuning knobs of the services: passed through when set in the environment, otherwise the services' defaults. */
const KNOBS = {
  FILE_CHUNK_CONCURRENCY: '4',
  FILE_VERIFY_CONCURRENCY: '25',
  FILE_CHUNK_SIZE: '500',
  FILE_CHUNKS_IN_FLIGHT: '32',
} as const;
const knobEnv = Object.fromEntries(
  Object.keys(KNOBS)
    .filter((k) => process.env[k])
    .map((k) => [k, process.env[k]!]),
);
const knobsUsed = { ...KNOBS, ...knobEnv };
/**
 * For exploring, any other service settings as JSON, e.g. BENCH_SERVICE_ENV='{"RESULT_CACHE_TTL_HOURS":"0"}' (what
 * the result cache costs); the reported figures use the defaults.
 */
const extraServiceEnv = JSON.parse(process.env.BENCH_SERVICE_ENV || '{}') as Record<string, string>;
const VERIFIER_ENTRY = 'dist/apps/verifier/src/main.js';
/** Longer than the gateway's keep-alive timeout (Node's default, 5 s): idle connections are closed by then. */
const KEEP_ALIVE_EXPIRY_MS = 6_000;

const MX_HOSTS = 200;
const mxHost = (i: number) => `mx${i}.provider.bench.test`;
/**
 * The domain of the n-th row: a fixed pseudo-random spread (the same in every phase), each domain about
 * ROWS/DOMAINS times, in no particular order. (A strict round robin would be the worst case for the engine's
 * domain cache, which holds 10,000 domains and evicts the oldest: with 20,000 domains it would never hit.)
 */
function domainOf(n: number): number {
  return mix(n) % DOMAINS;
}
function mix(n: number): number {
  let x = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}
/**
 * Which address the n-th row holds: its own, or (every DUPLICATE_EVERY-th row) the address of a pseudo-random
 * earlier row that holds its own, from anywhere before it in the file.
 */
function addressIndex(n: number): number {
  if (n % DUPLICATE_EVERY !== DUPLICATE_EVERY - 1) return n;
  const h = mix(n + 0x5bd1e995);
  const groupsBefore = Math.floor(n / DUPLICATE_EVERY);
  return (h % (groupsBefore + 1)) * DUPLICATE_EVERY + (h % (DUPLICATE_EVERY - 1));
}
/** The address of the n-th row of a phase's file (phase prefix). */
const address = (phase: string, n: number) => {
  const i = addressIndex(n);
  return `u${i}.${phase}@${benchDomain(domainOf(i))}`;
};

/**
 * The mail world's DNS server is one JavaScript event loop on a UDP socket with the kernel's default receive
 * buffer (rmem_default, 208 KiB here: a few hundred queries). Two verifiers with 100 addresses in hand each
 * send bursts of MX, A and AAAA questions larger than that; the kernel drops the excess and the verifier's
 * resolver waits out its 3 s timeout, then reports dns_error. That measures the stand-in, not the service,
 * so the socket gets a larger buffer (up to rmem_max, no privilege needed). The harness does not expose the
 * socket: this reaches into it, and says so when it cannot (libs/testing could do this itself).
 */
function enlargeDnsReceiveBuffer(world: MailWorld): string {
  const want = Number(process.env.BENCH_DNS_RCVBUF ?? 4 * 2 ** 20);
  try {
    const max = Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
    const udp = (world as unknown as { dns?: { udp?: import('node:dgram').Socket } }).dns?.udp;
    if (!udp || !want) return 'default';
    udp.setRecvBufferSize(Math.min(want, max || want));
    // Linux reports twice the size asked for (bookkeeping overhead).
    return `${round(udp.getRecvBufferSize() / 2 ** 20, 1)} MiB`;
  } catch (err) {
    log(`could not enlarge the DNS server's receive buffer (${err instanceof Error ? err.message : err})`);
    return 'default';
  }
}

/** UDP datagrams the kernel dropped for want of receive buffer so far (machine-wide; /proc/net/snmp). */
function udpReceiveDrops(): number {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('Udp:'));
    const names = lines[0].split(/\s+/);
    return Number(lines[1].split(/\s+/)[names.indexOf('RcvbufErrors')]);
  } catch {
    return 0;
  }
}

/**
 * A contact list: the address plus a few ordinary columns, about 95 bytes a row, so that the million-row file
 * is close to (and under) the 100 MiB upload limit, as a real export of that size would be.
 */
function csvFile(phase: string): Buffer {
  const lines = ['email,first_name,last_name,company,city,country,signup_date,source'];
  for (let n = 0; n < ROWS; n++) {
    const day = String((n % 28) + 1).padStart(2, '0');
    lines.push(
      `${address(phase, n)},First${n % 5003},Last${n % 7919},Company ${n % 997} Ltd,City ${n % 313},FR,2024-03-${day},import`,
    );
  }
  lines.push('');
  return Buffer.from(lines.join('\n'));
}

/** Just under the upload limit: long rows that all hold the same address, so the job itself costs nothing. */
function probeFile(): Buffer {
  const header = 'email,notes\n';
  const row = `probe@${benchDomain(0)},${'x'.repeat(2000)}\n`;
  const rows = Math.floor((PROBE_BYTES - header.length) / row.length);
  return Buffer.from(header + row.repeat(rows));
}

interface StatusBody {
  status: string;
  processed_emails: number;
  total_emails: number;
  valid_emails?: number;
  invalid_emails?: number;
  unknown_emails?: number;
  created_at?: string;
  started_at?: string | null;
  completed_at?: string | null;
  [key: string]: unknown;
}

const TERMINAL = ['completed', 'completed_with_warning', 'failed', 'cancelled'];

interface ServicePhase {
  label: string;
  verifiers: number;
  rows: number;
  fileBytes: number;
  /** Upload start to the job's `completed`, as the client sees it. */
  seconds: number;
  rowsPerSecond: number;
  /** Where the time went: upload reply (stream + parse + stage + reserve), verification, merge. */
  split: { uploadS: number; verifyS: number; mergeS: number };
  /** CPU (cores) in each part, per process. */
  cpu: { upload: Record<string, number>; verify: Record<string, number>; merge: Record<string, number> };
  cpuWhole: Record<string, number>;
  /** Each process's own peak RSS during the phase (VmHWM, reset at the phase's start), MiB. */
  peakRssMiB: Record<string, number>;
  /** The same, read when the upload was answered: what parsing and creating the job took. */
  peakRssAtUploadReplyMiB: Record<string, number>;
  /** emailverify_process_max_resident_memory_bytes after the phase (MiB): the peak since the process started. */
  peakRssSinceStartMiB: Record<string, number>;
  final: StatusBody;
  /** DNS questions the mail world answered, and UDP datagrams the kernel dropped (machine-wide) meanwhile. */
  dns: { queries: number; udpReceiveDrops: number };
  /** Addresses the service did not find valid/mx_found (the library found every one valid), and why. */
  notValid: number;
  notValidReasons: Record<string, number>;
  /** PostgreSQL backends of this installation by state/wait event, summed over samples during verification. */
  pgActivity: Record<string, number>;
  pgSamples: number;
}

interface UploadProbe {
  fileBytes: number;
  fileMiB: number;
  uploadReplySeconds: number;
  gatewayPeakRssBeforeMiB: number;
  gatewayPeakRssMiB: number;
  /** Each process's own peak RSS during the upload (VmHWM, reset before it), MiB. */
  peakRssMiB: Record<string, number>;
  peakRssSinceStartMiB: Record<string, number>;
}

type LibraryFigures = Awaited<ReturnType<typeof inProcess>>;

interface FloorFigures {
  rows: number;
  uniqueDomains: number;
  failedDomains: number;
  /** The fastest run: first byte read to last byte written. */
  seconds: number;
  rowsPerSecond: number;
  /** CPU time of the floor process in its fastest run, seconds. */
  cpuSeconds: number;
  /** The floor process's own peak RSS (VmHWM), highest of the runs, MiB. */
  peakRssMiB: number;
  runs: { seconds: number; cpuSeconds: number; peakRssMiB: number }[];
}

async function main(cleanup: Cleanup): Promise<void> {
  assertLocalInfrastructure();
  log(
    `file: ${ROWS.toLocaleString('en')} rows over ${DOMAINS.toLocaleString('en')} domains, MX-only, ` +
      `${UNIQUE.toLocaleString('en')} distinct addresses; phases: the floor, library in-process, ` +
      `then ${PHASES.join(', ')} (probe: 100 MiB upload; s1, s2: the service with 1, 2 verifiers)`,
  );
  log(`service knobs: ${JSON.stringify(knobsUsed)}${Object.keys(knobEnv).length ? '' : ' (defaults)'}`);
  const world = await startMailWorld(cleanup);
  const floor = await measureFloor(world, cleanup);
  const library = await measureLibrary(world);
  lookups = await LookupStandIns.start(cleanup);
  const installation = await startInstallation(world, cleanup, lookups);
  const uploadProbe = PHASES.includes('probe') ? await measureUploadProbe(installation) : undefined;
  const phases = await measureServicePhases(installation, world);
  if (PROFILE) {
    // One more run with the profiler on in file-jobs and the verifiers, outside the figures: one verifier, or
    // two with BENCH_PROFILE_VERIFIERS=2.
    const verifiers = process.env.BENCH_PROFILE_VERIFIERS === '2' ? 2 : 1;
    await installation.restartVerifiers(verifiers);
    await profiled(
      installation.suite,
      verifiers === 2 ? ['file-jobs', 'verifier', 'verifier2'] : ['file-jobs', 'verifier'],
      () => measureServicePhase(installation, world, `p${verifiers}`, verifiers, false),
    );
  }
  report(floor, library, uploadProbe, phases);
}

/**
 * The floor (file-floor.ts) in its own process, FLOOR_RUNS times, over the very file the one-verifier phase
 * uploads, against the same DNS server.
 */
async function measureFloor(world: MailWorld, cleanup: Cleanup): Promise<FloorFigures> {
  const dir = path.join(benchRoot, '.data', 'bench', 'file-floor');
  mkdirSync(dir, { recursive: true });
  cleanup.add('floor files', () => rmSync(dir, { recursive: true, force: true }));
  const input = path.join(dir, 'input.csv');
  const output = path.join(dir, 'output.csv');
  writeFileSync(input, csvFile('s1'));
  const runs: FloorFigures['runs'] = [];
  let last: { rows: number; uniqueDomains: number; failedDomains: number } | undefined;
  for (let i = 0; i < FLOOR_RUNS; i++) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(__dirname, 'file-floor.js'), input, output, world.dnsServers],
      { maxBuffer: 1 << 20 },
    );
    const figures = JSON.parse(stdout.trim().split('\n').at(-1)!) as FloorFigures & { seconds: number };
    runs.push({
      seconds: round(figures.seconds, 3),
      cpuSeconds: round(figures.cpuSeconds, 3),
      peakRssMiB: round(figures.peakRssMiB, 1),
    });
    last = figures;
  }
  const rowsWritten = readFileSync(output, 'utf8').split('\n').length - 2;
  if (last!.rows !== ROWS || rowsWritten !== ROWS)
    throw new Error(`floor: read ${last!.rows} rows and wrote ${rowsWritten}, expected ${ROWS}`);
  if (last!.failedDomains) log(`floor: WARNING ${last!.failedDomains} domains without an MX answer`);
  const fastest = runs.reduce((best, r) => (r.seconds < best.seconds ? r : best));
  const seconds = fastest.seconds;
  const floor = {
    rows: ROWS,
    uniqueDomains: last!.uniqueDomains,
    failedDomains: last!.failedDomains,
    seconds: round(seconds, 3),
    rowsPerSecond: round(ROWS / seconds, 1),
    cpuSeconds: fastest.cpuSeconds,
    peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
    runs,
  };
  log(
    `floor: ${ROWS} rows, ${floor.uniqueDomains} domains in ${floor.seconds} s (runs ${runs.map((r) => r.seconds).join(', ')}), ` +
      `peak RSS ${floor.peakRssMiB} MiB`,
  );
  return floor;
}

/** The mail world: DOMAINS domains on MX_HOSTS mail hosts, its DNS server with a larger receive buffer. */
async function startMailWorld(cleanup: Cleanup): Promise<MailWorld> {
  const world = await MailWorld.start();
  cleanup.add('mail world', () => world.stop());
  for (let i = 0; i < DOMAINS; i++) {
    // The domains are hosted by MX_HOSTS mail providers, as real domains mostly are. Not one host per
    // domain: the mail world's DNS server waits on every host's listener set-up before each answer, which
    // costs O(hosts) per question and made 20,000 hosts the bottleneck (about 550 questions/s). 'refused':
    // the host has an A record and nothing listens there; MX-only never connects. The verifier's DNS work
    // per domain is the same either way (MX, then the host's addresses, cached per domain).
    world.domain(benchDomain(i), { mx: [{ priority: 10, host: mxHost(i % MX_HOSTS), smtp: 'refused' }] });
  }
  await world.ready();
  const dnsBuffer = enlargeDnsReceiveBuffer(world);
  log(
    `mail world: DNS ${world.dnsServers} (UDP receive buffer ${dnsBuffer}), ${DOMAINS} domains on ${MX_HOSTS} MX hosts`,
  );
  return world;
}

/** The library in one process: parse + verify, same file shape, its own addresses. */
async function measureLibrary(world: MailWorld): Promise<LibraryFigures> {
  const library = await inProcess(world);
  log(
    `library in-process: ${library.rows} rows in ${library.seconds} s = ${library.rowsPerSecond}/s, ` +
      `bench peak RSS ${library.peakRssMiB} MiB, CPU ${JSON.stringify(library.cpu)}, DNS ${JSON.stringify(library.dns)}`,
  );
  return library;
}

async function startInstallation(
  world: MailWorld,
  cleanup: Cleanup,
  standIns: LookupStandIns,
): Promise<Installation> {
  log('starting credits, verifier, file-jobs and gateway (own database and NATS namespace)…');
  const suite = await TestSuite.start({
    services: ['credits', 'verifier', 'file-jobs'],
    env: {
      LOG_LEVEL,
      ...mailWorldEnv(world),
      DNS_TIMEOUT_MS: '3000',
      RATE_LIMIT_FILE: '1000000000',
      RATE_LIMIT_OTHER: '1000000000',
      FILE_MAX_EMAILS: String(Math.max(1_000_000, ROWS)),
      // Production defaults: Gravatar and RDAP set (to the stand-ins). A file job without enrich asks neither.
      ...standIns.env(),
      ...knobEnv,
      ...extraServiceEnv,
      // Node flags for the services only (the library side runs in this process), e.g. GC sizing.
      ...(process.env.BENCH_SERVICE_NODE_OPTIONS
        ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS }
        : {}),
      ...profileEnv(),
    },
  });
  cleanup.add('suite', () => suite.stop());
  assertLoopback('gateway', suite.gatewayUrl());
  // Every phase verifies a file of new addresses (the profiled run included).
  const { apiKey } = await suite.createAccount({
    credits: ROWS * (PHASES.length + 2) + 1_000,
    name: 'bench file',
  });
  return new Installation(suite, apiKey);
}

/** The running services, and what the phases ask of them: processes, peaks, job status, verifier restarts. */
class Installation {
  private readonly metricsUrls: Map<string, string>;
  private verifier2Port: number | undefined;
  /** Service phases run so far: the first with one verifier uses the one started with the installation. */
  phasesRun = 0;

  constructor(
    readonly suite: TestSuite,
    readonly apiKey: string,
  ) {
    this.metricsUrls = new Map<string, string>([
      ['gateway', `${suite.gatewayUrl()}/metrics`],
      ['credits', `${suite.serviceUrl('credits')}/metrics`],
      ['file-jobs', `${suite.serviceUrl('file-jobs')}/metrics`],
      ['verifier', `${suite.serviceUrl('verifier')}/metrics`],
    ]);
  }

  pids(): Record<string, number> {
    const out: Record<string, number> = {
      gateway: this.suite.processes.get('gateway0')!.child.pid!,
      credits: this.suite.processes.get('credits')!.child.pid!,
      'file-jobs': this.suite.processes.get('file-jobs')!.child.pid!,
      verifier: this.suite.processes.get('verifier')!.child.pid!,
    };
    const second = this.suite.processes.get('verifier2');
    if (second && second.child.exitCode === null) out.verifier2 = second.child.pid!;
    return out;
  }

  /**
   * Chunks each verifier has verified since it started, by outcome (the file_chunk_seconds histogram's
   * counts): more chunks than the job has means redeliveries, verified twice.
   */
  async chunksVerified(): Promise<Record<string, Record<string, number>>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [name, url] of this.metricsUrls) {
      if (!name.startsWith('verifier') || (name === 'verifier2' && !this.pids().verifier2)) continue;
      assertLoopback('metrics', url);
      const text = await (await fetch(url)).text();
      const counts: Record<string, number> = {};
      for (const m of text.matchAll(/^\w*file_chunk_seconds_count\{[^}]*outcome="(\w+)"[^}]*\} (\d+)/gm))
        counts[m[1]!] = (counts[m[1]!] ?? 0) + Number(m[2]);
      out[name] = counts;
    }
    return out;
  }

  /** emailverify_process_max_resident_memory_bytes of every process (MiB). */
  async peaks(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, url] of this.metricsUrls) {
      if (name === 'verifier2' && !this.pids().verifier2) continue;
      out[name] = round((await peakRssFromMetrics(url)) / 2 ** 20, 1);
    }
    return out;
  }

  async status(jobId: string, timeoutS: number): Promise<StatusBody> {
    const res = await this.suite.call(`/v1/verify/file/${jobId}?timeout=${timeoutS}`, { key: this.apiKey });
    if (res.status !== 200) throw new Error(`status of ${jobId}: ${res.status} ${res.text.slice(0, 500)}`);
    return res.json.data as StatusBody;
  }

  /** status/reason counts of a finished job's non-valid rows (from its filtered result CSV). */
  async reasonsOf(jobId: string): Promise<Record<string, number>> {
    const filters = ['invalid', 'risky', 'unknown', 'catchall', 'role', 'disposable'].map((f) => `${f}=true`);
    const res = await this.suite.call(`/v1/verify/file/${jobId}/results?${filters.join('&')}`, {
      key: this.apiKey,
    });
    const [header, ...lines] = res.text.trimEnd().split('\n');
    const cols = header.split(',');
    const si = cols.indexOf('verify_status') >= 0 ? cols.indexOf('verify_status') : cols.indexOf('status');
    const ri = cols.indexOf('verify_reason') >= 0 ? cols.indexOf('verify_reason') : cols.indexOf('reason');
    const out: Record<string, number> = {};
    for (const line of lines) {
      const cells = line.split(',');
      const key = `${cells[si]}/${cells[ri]}`;
      out[key] = (out[key] ?? 0) + 1;
    }
    return out;
  }

  async waitTerminal(jobId: string): Promise<StatusBody> {
    for (;;) {
      const body = await this.status(jobId, 30);
      if (TERMINAL.includes(body.status)) return body;
    }
  }

  /** Cold verifiers for the next phase: `count` of them, freshly started. */
  async restartVerifiers(count: number): Promise<void> {
    const second = this.suite.processes.get('verifier2');
    if (second) await this.suite.stopService('verifier2' as 'verifier');
    await this.suite.stopService('verifier');
    await this.suite.startService('verifier');
    if (count > 1) {
      // The harness keys processes by service name; the second replica is launched here under its own name
      // and port, and registered in `suite.processes`, so `suite.stop()` stops it with the rest.
      this.verifier2Port ??= await freePort();
      const proc = launch(
        'verifier2',
        VERIFIER_ENTRY,
        this.suite.env({ HTTP_PORT: String(this.verifier2Port) }),
      );
      this.suite.processes.set('verifier2', proc);
      await waitUntilReady(proc, `http://127.0.0.1:${this.verifier2Port}/health/ready`);
      this.metricsUrls.set('verifier2', `http://127.0.0.1:${this.verifier2Port}/metrics`);
    } else {
      this.metricsUrls.delete('verifier2');
    }
  }
}

/** Probe: the gateway streaming an upload of just under 100 MiB. */
async function measureUploadProbe(installation: Installation): Promise<UploadProbe> {
  const { suite, apiKey } = installation;
  const probe = probeFile();
  // As before each phase's upload: a connection left idle while the file was built is let go first.
  await sleep(KEEP_ALIVE_EXPIRY_MS);
  const gatewayBefore = (await installation.peaks()).gateway;
  const probePids = installation.pids();
  for (const pid of Object.values(probePids)) resetPeakRss(pid);
  const probeStarted = performance.now();
  const probeReply = await suite
    .upload({
      key: apiKey,
      file: { name: 'probe.csv', content: probe },
      fields: { preserve_original: 'false' },
    })
    .catch((err: unknown) => {
      lastOutput(suite);
      throw err;
    });
  const probeSeconds = round((performance.now() - probeStarted) / 1000, 2);
  if (probeReply.status !== 200)
    throw new Error(`probe upload: ${probeReply.status} ${probeReply.text.slice(0, 500)}`);
  const probePeakRss = peakRssMiB(probePids);
  const probeDone = await installation.waitTerminal(probeReply.json.data.task_id as string);
  if (probeDone.status !== 'completed') throw new Error(`probe job ended ${probeDone.status}`);
  const probePeaks = await installation.peaks();
  const uploadProbe = {
    fileBytes: probe.length,
    fileMiB: round(probe.length / 2 ** 20, 1),
    uploadReplySeconds: probeSeconds,
    gatewayPeakRssBeforeMiB: gatewayBefore,
    gatewayPeakRssMiB: probePeaks.gateway,
    peakRssMiB: probePeakRss,
    peakRssSinceStartMiB: probePeaks,
  };
  log(
    `upload probe: ${uploadProbe.fileMiB} MiB in ${probeSeconds} s; gateway peak RSS ${uploadProbe.peakRssMiB.gateway} MiB ` +
      `(${gatewayBefore} MiB before the upload)`,
  );
  return uploadProbe;
}

/** The service, with one then two verifier processes, each phase with cold verifiers. */
async function measureServicePhases(installation: Installation, world: MailWorld): Promise<ServicePhase[]> {
  const phases: ServicePhase[] = [];
  // s1 and s2, and for alternating runs more of each (s1b, s2b, ...: the digit is the verifier count).
  const service = PHASES.flatMap((p) => {
    const m = /^s([12])[a-z]?$/.exec(p);
    return m ? [[p, Number(m[1])] as const] : [];
  });
  for (const [label, verifiers] of service) {
    const phase = await measureServicePhase(installation, world, label, verifiers);
    phases.push(phase);
    log(
      `service, ${verifiers} verifier(s): ${phase.rows} rows in ${phase.seconds} s = ${phase.rowsPerSecond}/s ` +
        `(upload ${phase.split.uploadS} s, verify ${phase.split.verifyS} s, merge ${phase.split.mergeS} s)`,
    );
    log(`  CPU during verification (cores): ${JSON.stringify(phase.cpu.verify)}`);
    log(
      `  DNS: ${phase.dns.queries} questions answered, ${phase.dns.udpReceiveDrops} UDP datagrams dropped (machine-wide)`,
    );
    log(
      `  peak RSS in the phase (MiB, VmHWM): ${JSON.stringify(phase.peakRssMiB)}; by the upload's reply: ` +
        JSON.stringify(phase.peakRssAtUploadReplyMiB),
    );
  }
  return phases;
}

/** One upload of a phase's own file, from the start of the upload to the job's end, with where time went. */
async function measureServicePhase(
  installation: Installation,
  world: MailWorld,
  label: string,
  verifiers: number,
  restart = true,
): Promise<ServicePhase> {
  const { suite, apiKey } = installation;
  if (restart && (verifiers > 1 || installation.phasesRun > 0))
    await installation.restartVerifiers(verifiers);
  installation.phasesRun += 1;
  // Every phase starts from the same empty result cache. Its addresses are new, so what earlier phases cached is
  // never hit, but it grows the table and its index by every distinct address of a phase (900,000 with --large),
  // and later phases paid for it: PostgreSQL's CPU rose from 7.6 to 10.1 s over four phases in a row on the same
  // code, which counted against whichever verifier count came later (s2 after s1 by default).
  await suite.sql('TRUNCATE verifier.results');
  const file = csvFile(label);
  // Generating a large file takes seconds: a connection that the last request left idle may be closed by the
  // gateway (keep-alive timeout) just as the upload starts writing on it, which fails the upload (EPIPE). It is
  // let go first.
  await sleep(KEEP_ALIVE_EXPIRY_MS);
  const processes = installation.pids();
  world.resetCounters();
  const dropsBefore = udpReceiveDrops();
  for (const pid of Object.values(processes)) resetPeakRss(pid);
  const pg = new PgActivitySampler(suite);
  const whole = new CpuMeter(processes);
  let meter = new CpuMeter(processes);
  const started = performance.now();
  const reply = await suite
    .upload({ key: apiKey, file: { name: `contacts-${label}.csv`, content: file } })
    .catch((err: unknown) => {
      lastOutput(suite);
      throw err;
    });
  const uploadS = (performance.now() - started) / 1000;
  if (reply.status !== 200) throw new Error(`${label} upload: ${reply.status} ${reply.text.slice(0, 500)}`);
  const cpuUpload = meter.stop();
  const peakAtUploadReply = peakRssMiB(processes);
  meter = new CpuMeter(processes);
  const jobId = reply.json.data.task_id as string;
  if (reply.json.data.unique_emails !== UNIQUE || reply.json.data.total_rows !== ROWS)
    throw new Error(
      `${label}: ${reply.json.data.unique_emails} unique addresses in ${reply.json.data.total_rows} rows, expected ${UNIQUE} in ${ROWS}`,
    );
  log(`${label}: upload accepted after ${round(uploadS, 1)} s (job ${jobId}); verifying…`);
  pg.start();

  // Progress: a short poll every second (for the moment merging starts and the log), beside the long poll
  // that notices completion at once.
  let mergingAt: number | undefined;
  let cpuVerify: Record<string, number> | undefined;
  let lastLog = performance.now();
  let polling = true;
  const progress = (async () => {
    while (polling) {
      const body = await installation.status(jobId, 0).catch(() => undefined);
      const now = performance.now();
      if (body && mergingAt === undefined && (body.status === 'merging' || TERMINAL.includes(body.status))) {
        mergingAt = now;
        cpuVerify = meter.stop();
        meter = new CpuMeter(processes);
        pg.stop();
      }
      if (body && now - lastLog > 10_000) {
        lastLog = now;
        log(
          `${label}: ${body.status} ${body.processed_emails}/${body.total_emails} after ${round((now - started) / 1000, 0)} s`,
        );
      }
      await sleep(1_000);
    }
  })();
  let final: StatusBody;
  try {
    final = await installation.waitTerminal(jobId);
  } finally {
    polling = false;
  }
  const ended = performance.now();
  await progress;
  const cpuMerge = meter.stop();
  const cpuWhole = whole.stop();
  pg.stop();
  const peakRss = peakRssMiB(processes);
  const dns = { queries: world.dnsQueries(), udpReceiveDrops: udpReceiveDrops() - dropsBefore };
  log(
    `${label}: chunks verified, by verifier and outcome: ${JSON.stringify(await installation.chunksVerified())}`,
  );
  if (!TERMINAL.slice(0, 2).includes(final.status) || final.processed_emails !== UNIQUE) {
    throw new Error(`${label}: job ended ${JSON.stringify(final)}; expected ${UNIQUE} processed addresses`);
  }
  // Every address should be valid/mx_found (as on the library side); anything else is reported with reasons.
  const notValid = UNIQUE - (final.valid_emails ?? 0);
  let notValidReasons: Record<string, number> = {};
  if (notValid > 0) {
    notValidReasons = await installation.reasonsOf(jobId);
    log(`${label}: WARNING ${notValid} addresses not valid: ${JSON.stringify(notValidReasons)}`);
  }
  mergingAt ??= ended;
  const seconds = (ended - started) / 1000;
  return {
    label,
    verifiers,
    rows: ROWS,
    fileBytes: file.length,
    seconds: round(seconds, 2),
    rowsPerSecond: round(ROWS / seconds, 1),
    split: {
      uploadS: round(uploadS, 2),
      verifyS: round((mergingAt - started) / 1000 - uploadS, 2),
      mergeS: round((ended - mergingAt) / 1000, 2),
    },
    cpu: { upload: cpuUpload, verify: cpuVerify ?? cpuMerge, merge: cpuVerify ? cpuMerge : {} },
    cpuWhole,
    peakRssMiB: peakRss,
    peakRssAtUploadReplyMiB: peakAtUploadReply,
    peakRssSinceStartMiB: await installation.peaks(),
    final,
    dns,
    notValid,
    notValidReasons,
    pgActivity: pg.counts,
    pgSamples: pg.samples,
  };
}

/** What the gateway and file-jobs said last: it tells why an upload got no reply. */
function lastOutput(suite: TestSuite): void {
  for (const name of ['gateway0', 'file-jobs']) {
    const out = suite.processes.get(name)?.output.join('') ?? '';
    log(`${name}, last output:\n${out.split('\n').slice(-15).join('\n')}`);
  }
}

/** Tables on the console, targets, and every figure in .data/bench/file(-large).json. */
function report(
  floor: FloorFigures,
  library: LibraryFigures,
  uploadProbe: UploadProbe | undefined,
  phases: ServicePhase[],
): void {
  /** Service time over the floor's: the target is at most FLOOR_RATIO_TARGET. */
  const overFloor = (p: ServicePhase) => round(p.seconds / floor.seconds, 2);
  /**
   * CPU seconds of the service's own processes over the phase (PostgreSQL and NATS are counted machine-wide,
   * with other work on them, so they are left out): less sensitive to a busy machine than the elapsed time.
   */
  const serviceCpuS = (p: ServicePhase) =>
    round(
      ['gateway', 'file-jobs', 'verifier', 'verifier2', 'credits'].reduce(
        (sum, n) => sum + (p.cpuWhole[n] ?? 0),
        0,
      ) * p.seconds,
      2,
    );
  const cpuCell = (c: Record<string, number>) =>
    [
      `gw ${c.gateway ?? 0}`,
      `fj ${c['file-jobs'] ?? 0}`,
      `ver ${round((c.verifier ?? 0) + (c.verifier2 ?? 0), 2)}`,
      `cr ${c.credits ?? 0}`,
      `pg ${c.postgres ?? 0}`,
      `nats ${c.nats ?? 0}`,
      `bench ${c.bench ?? 0}`,
      `other ${c.other ?? 0}`,
    ].join(' ');
  warnIfBusy([library.cpu, ...phases.map((p) => p.cpuWhole)]);
  printTable(
    [
      `file, ${ROWS.toLocaleString('en')} rows (${UNIQUE.toLocaleString('en')} distinct), MX-only`,
      'rows/s',
      'seconds',
      'x floor',
      'own CPU s',
      'upload s',
      'verify s',
      'merge s',
    ],
    [
      [
        `floor: one process, MX once per domain (fastest of ${floor.runs.length})`,
        floor.rowsPerSecond,
        floor.seconds,
        1,
        floor.cpuSeconds,
        '',
        '',
        '',
      ],
      ...phases.map((p) => [
        `service, ${p.verifiers} verifier${p.verifiers > 1 ? 's' : ''} (upload to completed)`,
        p.rowsPerSecond,
        p.seconds,
        overFloor(p),
        serviceCpuS(p),
        p.split.uploadS,
        p.split.verifyS,
        p.split.mergeS,
      ]),
      [
        'library in-process, parse + verify every row (information)',
        library.rowsPerSecond,
        library.seconds,
        round(library.seconds / floor.seconds, 2),
        round(library.cpu.bench * library.seconds, 2),
        '',
        '',
        '',
      ],
    ],
  );
  printTable(
    ['CPU (cores), whole phase', 'per process'],
    [
      ['library in-process', `bench ${library.cpu.bench} other ${library.cpu.other}`],
      ...phases.map((p) => [`service, ${p.verifiers} verifier(s)`, cpuCell(p.cpuWhole)]),
      ...phases.map((p) => [`  … during verification only`, cpuCell(p.cpu.verify)]),
    ],
  );
  const names = ['gateway', 'file-jobs', 'verifier', 'verifier2', 'credits'];
  printTable(
    ['peak RSS MiB in the phase (VmHWM)', 'floor', ...names],
    [
      ['floor (its own process)', floor.peakRssMiB, ...names.map(() => '')],
      ...(uploadProbe
        ? [
            [
              `upload probe (${uploadProbe.fileMiB} MiB)`,
              '',
              ...names.map((n) => uploadProbe.peakRssMiB[n] ?? ''),
            ],
          ]
        : []),
      ...phases.map((p) => [
        `service, ${p.verifiers} verifier(s)`,
        '',
        ...names.map((n) => p.peakRssMiB[n] ?? ''),
      ]),
    ],
  );
  const maxRss = Math.max(...phases.flatMap((p) => Object.values(p.peakRssMiB)));
  // With phases run more than once (BENCH_PHASES=s1,s2,s1b,s2b), the fastest run of each verifier count.
  const fastest = (verifiers: number) =>
    phases.filter((p) => p.verifiers === verifiers).sort((a, b) => a.seconds - b.seconds)[0];
  const one = fastest(1);
  const two = fastest(2);
  const targets = {
    withinEightTimesTheFloor: phases.map((p) => ({
      verifiers: p.verifiers,
      ratio: overFloor(p),
      met: overFloor(p) <= FLOOR_RATIO_TARGET,
    })),
    gatewayUnder256MiBDuringUpload: uploadProbe && {
      peakMiB: uploadProbe.peakRssMiB.gateway,
      fileMiB: uploadProbe.fileMiB,
      met: uploadProbe.peakRssMiB.gateway < 256,
    },
    noProcessOver512MiB: {
      rows: ROWS,
      highestPeakMiB: maxRss,
      met: maxRss <= 512,
      applies: ROWS >= 1_000_000,
    },
    twoVerifiersNoSlowerThanOne:
      one && two ? { oneS: one.seconds, twoS: two.seconds, met: two.seconds <= one.seconds } : undefined,
  };
  log(`targets: ${JSON.stringify(targets)}`);
  for (const p of phases) {
    log(
      `PostgreSQL backends during verification, ${p.verifiers} verifier(s) (state/wait, average over ${p.pgSamples} samples): ${JSON.stringify(averageActivity(p))}`,
    );
  }
  const file = writeReport(LARGE ? 'file-large' : 'file', {
    benchmark: 'file',
    date: new Date().toISOString(),
    machine: machine(),
    settings: {
      rows: ROWS,
      uniqueAddresses: UNIQUE,
      domains: DOMAINS,
      checkSmtp: false,
      libraryBatch: LIBRARY_BATCH,
      libraryConcurrency: LIBRARY_CONCURRENCY,
      serviceKnobs: knobsUsed,
      serviceKnobsAreDefaults: Object.keys(knobEnv).length === 0,
      serviceLogLevel: LOG_LEVEL,
      quick,
      large: LARGE,
      lookupStandIns: { delayMs: lookups?.delayMs, requests: lookups?.requests() },
    },
    floor,
    library,
    uploadProbe,
    service: phases,
    ratiosOverFloor: Object.fromEntries(phases.map((p) => [`verifiers${p.verifiers}`, overFloor(p)])),
    serviceOwnCpuSeconds: Object.fromEntries(phases.map((p) => [`verifiers${p.verifiers}`, serviceCpuS(p)])),
    targets,
  });
  log(`figures written to ${file}`);
}

function averageActivity(p: ServicePhase): Record<string, number> {
  return Object.fromEntries(
    Object.entries(p.pgActivity)
      .map(([k, v]) => [k, round(v / Math.max(1, p.pgSamples), 1)] as const)
      .filter(([, v]) => v >= 0.1)
      .sort((a, b) => b[1] - a[1]),
  );
}

/** The library in this process over a file of the same shape: openTable over the bytes, verifyMany in batches. */
async function inProcess(world: MailWorld) {
  const file = csvFile('lib');
  const engine = mailWorldEngine(world);
  world.resetCounters();
  const dropsBefore = udpReceiveDrops();
  const sampler = new RssSampler({}, 250);
  const meter = new CpuMeter({});
  const started = performance.now();
  const { column, batches } = await openTable(Readable.from([file]), 'csv');
  const statuses: Record<string, number> = {};
  let done = 0;
  let batch: string[] = [];
  const flush = async () => {
    for (const r of await engine.verifyMany(
      batch,
      { checkSmtp: false },
      { concurrency: LIBRARY_CONCURRENCY },
    )) {
      const key = `${r.status}/${r.reason}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    done += batch.length;
    batch = [];
  };
  // Batches of rows, as file-jobs reads them (one asynchronous step per batch, not per row).
  for await (const rows of batches) {
    for (const cells of rows) {
      batch.push((cells[column.index] ?? '').trim());
      if (batch.length >= LIBRARY_BATCH) await flush();
    }
  }
  if (batch.length) await flush();
  const seconds = (performance.now() - started) / 1000;
  const cpu = meter.stop();
  const sampled = sampler.stop();
  if (done !== ROWS) throw new Error(`library: ${done} rows, expected ${ROWS}`);
  if (statuses['valid/mx_found'] !== ROWS)
    log(`library: WARNING not every address valid/mx_found: ${JSON.stringify(statuses)}`);
  return {
    rows: done,
    fileBytes: file.length,
    seconds: round(seconds, 2),
    rowsPerSecond: round(done / seconds, 1),
    statuses,
    cpu,
    dns: { queries: world.dnsQueries(), udpReceiveDrops: udpReceiveDrops() - dropsBefore },
    /** This process (the library, the file in memory and the mail world's DNS server), sampled. */
    peakRssMiB: sampled.bench,
  };
}

/** Samples pg_stat_activity of the suite's database: how many backends are active, idle or waiting, and on what. */
class PgActivitySampler {
  counts: Record<string, number> = {};
  samples = 0;
  private timer?: NodeJS.Timeout;
  private busy = false;

  constructor(private readonly suite: TestSuite) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), 2_000);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async sample(): Promise<void> {
    if (this.busy || !this.timer) return;
    this.busy = true;
    try {
      const rows = await this.suite.sql<{ key: string; n: string }>(
        `SELECT coalesce(state, '?') || '/' || coalesce(wait_event_type || ':' || wait_event, 'cpu') AS key,
                count(*) AS n
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
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

const cleanup = new Cleanup();
void cleanup.run('file', quick ? 170_000 : LARGE ? 1_800_000 : 420_000, () => main(cleanup));
