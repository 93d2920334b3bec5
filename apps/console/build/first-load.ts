import { gzipSync } from 'node:zlib';

/** The most JavaScript, gzipped, that the console's first page may load before any route's own chunk. */
export const FIRST_LOAD_LIMIT_BYTES = 250 * 1024;

/** What the size rule needs of an output chunk (Rollup's OutputChunk has these). */
export interface ChunkInfo {
  fileName: string;
  isEntry: boolean;
  /** Chunks this one imports statically: loaded with it. Dynamic imports (lazy routes) are not. */
  imports: readonly string[];
  code: string;
}

/** The chunks the browser loads before the first page shows: every entry and what it imports statically. */
export function firstLoadChunks(chunks: readonly ChunkInfo[]): ChunkInfo[] {
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const seen = new Set<string>();
  const pending = chunks.filter((chunk) => chunk.isEntry).map((chunk) => chunk.fileName);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    pending.push(...(byName.get(name)?.imports ?? []));
  }
  return chunks.filter((chunk) => seen.has(chunk.fileName));
}

/** The gzipped size of the first load's JavaScript, in bytes, and the files it counts. */
export function firstLoadSize(chunks: readonly ChunkInfo[]): { bytes: number; files: string[] } {
  const loaded = firstLoadChunks(chunks);
  return {
    bytes: loaded.reduce((sum, chunk) => sum + gzipSync(chunk.code, { level: 9 }).length, 0),
    files: loaded.map((chunk) => chunk.fileName).sort(),
  };
}

/** The line the build prints, and whether the size passes the limit. */
export function firstLoadVerdict(
  bytes: number,
  limit = FIRST_LOAD_LIMIT_BYTES,
): { ok: boolean; line: string } {
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const ok = bytes <= limit;
  return {
    ok,
    line: `console first-load JavaScript: ${kib(bytes)} gzipped (limit ${kib(limit)})${ok ? '' : ': over the limit'}`,
  };
}
