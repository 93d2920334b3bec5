import type { ByteSource } from '../source';
import { decodeText } from '../text/decode';
import { RFC4180 } from './dialect';
import { parseCsvText } from './parse';

export interface ReadCsvOptions {
  /** Result rows carry the original line plus the verification cells, hence more room than uploads get. */
  maxLineBytes?: number;
}

/**
 * Reads a result CSV (as CsvWriter wrote it) back as rows, for filtered downloads: fixed RFC 4180 dialect,
 * cells exactly as stored (formula escapes included, so writing them again changes nothing).
 */
export async function* readCsv(source: ByteSource, options: ReadCsvOptions = {}): AsyncGenerator<string[]> {
  const maxLineBytes = options.maxLineBytes ?? 4 * 1024 * 1024;
  const texts = decodeText(source, { maxLineBytes, label: 'CSV' });
  for await (const batch of parseCsvText(texts, {
    dialect: RFC4180,
    maxRecordChars: maxLineBytes,
    label: 'CSV',
  })) {
    yield* batch;
  }
}
