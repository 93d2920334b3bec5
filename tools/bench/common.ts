// Shared helpers of the on-demand benchmarks (tools/bench): loopback guard, cleanup, timing, medians, output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { MailWorld } from '@emailverify/testing';
import { VerificationEngine, defaultVerificationOptions } from '@emailverify/verification';

/** The repository root: run.mjs passes it, because the benchmarks run from a private build directory. */
export const benchRoot = process.env.BENCH_ROOT || process.cwd();

/** `--quick`: shorter phases, one round, for a smoke run of the benchmark itself (figures are not stable). */
export const quick = process.argv.includes('--quick');

/** Refuses anything that is not on 127.0.0.0/8 (or "localhost"): benchmarks never leave the machine. */
export function assertLoopback(what: string, url: string | undefined): void {
  if (!url) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return;
  throw new Error(`${what} (${url}) is not on loopback; the benchmarks only talk to 127.0.0.0/8`);
}

/** Checks the environment the services will inherit: PostgreSQL, NATS and Redis must be local. */
export function assertLocalInfrastructure(): void {
  assertLoopback('DATABASE_URL', process.env.DATABASE_URL);
  assertLoopback('NATS_URL', process.env.NATS_URL);
  assertLoopback('REDIS_URL', process.env.REDIS_URL);
}

type CleanupStep = () => Promise<unknown> | unknown;

/**
 * What a benchmark started, stopped in reverse order on success, failure, Ctrl-C, SIGTERM or the overall
 * deadline. Every benchmark calls `run` once.
 */
export class Cleanup {
  private readonly steps: { name: string; step: CleanupStep }[] = [];
  private running: Promise<void> | undefined;

  add(name: string, step: CleanupStep): void {
    this.steps.push({ name, step });
  }

  runAll(): Promise<void> {
    this.running ??= (async () => {
      for (const { name, step } of this.steps.splice(0).reverse()) {
        try {
          await withTimeout(Promise.resolve(step()), 30_000, `cleanup of ${name}`);
        } catch (err) {
          process.stderr.write(`[bench] cleanup of ${name} failed: ${describe(err)}\n`);
        }
      }
    })();
    return this.running;
  }

  /** Runs `body` with signal handlers and an overall deadline; always cleans up; sets the exit code. */
  async run(name: string, deadlineMs: number, body: () => Promise<void>): Promise<void> {
    let stopping = false;
    const abort = (why: string) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`[bench] ${name}: ${why}; cleaning up\n`);
      void this.runAll().finally(() => process.exit(1));
    };
    // `on`, not `once`: a second Ctrl-C (terminal and run.mjs both deliver one) must not kill us mid-cleanup.
    process.on('SIGINT', () => abort('interrupted'));
    process.on('SIGTERM', () => abort('terminated'));
    const deadline = setTimeout(() => abort(`still running after ${deadlineMs / 1000} s`), deadlineMs);
    deadline.unref();
    try {
      await body();
      process.exitCode = 0;
    } catch (err) {
      // After a signal or the deadline the services are being stopped under the run: that failure is expected.
      if (!stopping)
        process.stderr.write(
          `[bench] ${name} failed: ${describe(err)}\n${err instanceof Error ? (err.stack ?? '') : ''}\n`,
        );
      process.exitCode = 1;
    } finally {
      clearTimeout(deadline);
      if (!stopping) await this.runAll();
    }
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** An error's message, with its causes (a failed fetch says why only in its cause). */
export function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause === undefined ? err.message : `${err.message} (${describe(err.cause)})`;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Per-key median of CPU figures (cores) of several runs. */
export function medianCpu(list: readonly Record<string, number>[]): Record<string, number> {
  const keys = [...new Set(list.flatMap((c) => Object.keys(c)))];
  return Object.fromEntries(keys.map((k) => [k, round(median(list.map((c) => c[k] ?? 0)), 2)]));
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function log(message: string): void {
  process.stdout.write(`[bench] ${message}\n`);
}

export function machine() {
  const list = cpus();
  return {
    cores: list.length,
    cpu: list[0]?.model ?? 'unknown',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** Prints rows as a fixed-width table. */
export function printTable(header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  process.stdout.write(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of cells.slice(1)) process.stdout.write(`${line(r)}\n`);
  process.stdout.write('\n');
}

/** Writes `.data/bench/<name>.json` under the repository root and returns its path. */
export function writeReport(name: string, report: object): string {
  const dir = path.join(benchRoot, '.data', 'bench');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A round in which other work on the machine used at least this many cores is run again (see `disturbed`). */
export const BUSY_CORES = 0.25;

/** Whether other work on the machine used a noticeable share of the cores in any of these runs. */
export function disturbed(cpus: readonly Record<string, number>[]): boolean {
  return cpus.some((c) => (c.other ?? 0) >= BUSY_CORES);
}

/** Says so when other work on the machine took a noticeable share of the cores during the measured runs. */
export function warnIfBusy(cpus: readonly Record<string, number>[]): void {
  const worst = Math.max(0, ...cpus.map((c) => c.other ?? 0));
  if (worst >= BUSY_CORES) {
    log(
      `note: other work on this machine used up to ${worst} cores during the measured runs; ` +
        'the figures are noisier than usual (run again on an idle machine to compare)',
    );
  }
}

/**
 * The verification library in this process, MX-only against the mail world (which lives on loopback), with every
 * outside lookup (blocklists, Gravatar, RDAP) off: the baseline the service's own verification is held against.
 */
export function mailWorldEngine(world: MailWorld): VerificationEngine {
  return new VerificationEngine({
    ...defaultVerificationOptions(),
    dnsServers: [world.dnsServers],
    smtpPort: world.smtpPort,
    smtpAllowPrivateNetworks: true,
    dnsblIpZones: [],
    dnsblDomainZones: [],
    gravatarBaseUrl: '',
    rdapBaseUrl: '',
  });
}

/** The name of the benchmarks' domain number `i`. */
export const benchDomain = (i: number) => `d${i}.bench.test`;

/** A mail world of `domains` domains (benchDomain), each with one MX host that accepts mailbox `a` alone. */
export async function startMailboxWorld(cleanup: Cleanup, domains: number): Promise<MailWorld> {
  const world = await MailWorld.start();
  cleanup.add('mail world', () => world.stop());
  for (let i = 0; i < domains; i++) {
    world.domain(benchDomain(i), {
      mx: [{ priority: 10, host: `mx.${benchDomain(i)}`, smtp: { mailboxes: ['a'] } }],
    });
  }
  await world.ready();
  log(`mail world: DNS ${world.dnsServers}, ${domains} MX hosts on 127.0.x.y:${world.smtpPort}`);
  return world;
}
