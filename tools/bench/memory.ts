// Resident memory of the processes under test: sampled from /proc during a phase, and the peak since start
// that every service reports on /metrics (emailverify_process_max_resident_memory_bytes).
import { readFileSync, writeFileSync } from 'node:fs';
import { assertLoopback, round } from './common';

/** Current RSS of a process in bytes (Linux /proc/<pid>/status VmRSS; 0 when unavailable). */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The peak RSS of a process in bytes since it started or since `resetPeakRss` (VmHWM; 0 when unavailable). */
export function peakRssBytes(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Starts a process's peak RSS (VmHWM) again from its current RSS (Linux clear_refs "5"); false if refused. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Each named process's own peak RSS (VmHWM) in MiB. */
export function peakRssMiB(pids: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, round(peakRssBytes(pid) / 2 ** 20, 1)]),
  );
}

/**
 * Samples the RSS of the named processes, and of this one as `bench`, every `intervalMs`; `stop` returns the
 * highest sample of each, in MiB. Short spikes between samples are missed: the services' own peak figures
 * (`peakRssFromMetrics`) do not miss them, but count from the process's start.
 */
export class RssSampler {
  private readonly peaks: Record<string, number> = {};
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pids: Record<string, number>,
    intervalMs = 250,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    const now: Record<string, number> = { bench: process.memoryUsage.rss() };
    for (const [name, pid] of Object.entries(this.pids)) now[name] = rssBytes(pid);
    for (const [name, bytes] of Object.entries(now))
      this.peaks[name] = Math.max(this.peaks[name] ?? 0, bytes);
  }

  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.sample();
    return Object.fromEntries(Object.entries(this.peaks).map(([k, v]) => [k, round(v / 2 ** 20, 1)]));
  }
}

/** `emailverify_process_max_resident_memory_bytes` of a service, from its Prometheus /metrics. */
export async function peakRssFromMetrics(url: string): Promise<number> {
  assertLoopback('metrics', url);
  const res = await fetch(url);
  const text = await res.text();
  const match =
    /^emailverify_process_max_resident_memory_bytes(?:\{[^}]*\})? (\d+(?:\.\d+)?(?:e\+\d+)?)/m.exec(text);
  if (!res.ok || !match)
    throw new Error(`${url}: no emailverify_process_max_resident_memory_bytes (${res.status})`);
  return Number(match[1]);
}
