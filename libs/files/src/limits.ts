/** Limits that keep one upload from exhausting memory or disk, whatever its content. */
export interface ReadLimits {
  /** A longer CSV/TXT line (or quoted record) is refused; it also bounds what the CSV parser buffers. */
  maxLineBytes: number;
  /** XLSX: total inflated bytes of the parts read (zip-bomb guard). */
  maxUnzippedBytes: number;
  /** XLSX: an entry over 1 MiB that inflates more than this many times its packed size is refused. */
  maxCompressionRatio: number;
  /** XLSX: total characters of the shared-strings table, which must be held in memory while the sheet streams. */
  maxSharedStringChars: number;
  /** Optional cap on data rows (header excluded); more is refused with PAYLOAD_TOO_LARGE. */
  maxRows?: number;
}

export const MIB = 1024 * 1024;

export const DEFAULT_READ_LIMITS: Readonly<ReadLimits> = Object.freeze({
  maxLineBytes: MIB,
  maxUnzippedBytes: 512 * MIB,
  maxCompressionRatio: 200,
  maxSharedStringChars: 128 * MIB,
});

/** Excel's own column limit; no real address list comes near it, so more means a broken or hostile file. */
export { MAX_COLUMNS } from '@emailverify/spreadsheet';

export function resolveLimits(limits: Partial<ReadLimits> | undefined): ReadLimits {
  const resolved: ReadLimits = { ...DEFAULT_READ_LIMITS };
  for (const [key, value] of Object.entries(limits ?? {}) as [keyof ReadLimits, number | undefined][]) {
    if (value !== undefined) resolved[key] = value;
  }
  return resolved;
}
