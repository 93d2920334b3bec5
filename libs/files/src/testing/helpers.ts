// Test support for the files library's specs.
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

/** Runs `work` while sampling resident memory; returns the largest growth over the starting value, in bytes. */
export async function peakRssGrowth(work: () => Promise<unknown>): Promise<number> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    await work().catch(() => undefined);
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage().rss) - start;
}
