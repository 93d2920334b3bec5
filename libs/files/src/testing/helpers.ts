// Test support for the files library's specs.
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';

/** A Node stream over the given pieces, as an object-store download would be. */
export function sourceOf(...pieces: (string | Uint8Array)[]): Readable {
  return Readable.from(
    pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece))),
  );
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** Drains an iterable, keeping only a count: for files too big to hold in a test. */
export async function count(iterable: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of iterable) n += 1;
  return n;
}

/**
 * Runs `work` and returns how far the process's resident memory rose above its level when `work` started, in
 * bytes. The peak is the kernel's own high-water mark, not a timer's samples (which CPU-bound work starves).
 * On Linux the mark is reset first, so nothing that ran before in this process counts; elsewhere it cannot
 * be, and an earlier, higher peak makes the result too high, never too low. Errors from `work` propagate.
 */
export async function peakRssGrowth(work: () => Promise<unknown>): Promise<number> {
  const reset = resetPeakRss();
  const start = process.memoryUsage.rss();
  await work();
  // VmHWM rather than getrusage's maxRSS: on Linux the latter also keeps the peak of the process this one was
  // spawned from, which a reset does not clear.
  const peak = reset ? linuxPeakRss() : process.resourceUsage().maxRSS * 1024;
  return peak - start;
}

/** Resets the process's peak resident set size to its current one (Linux: `5` to /proc/self/clear_refs). */
function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** The process's peak resident set size since the last reset (VmHWM), in bytes. */
function linuxPeakRss(): number {
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  if (kib === undefined) throw new Error('/proc/self/status has no VmHWM line');
  return Number(kib) * 1024;
}
