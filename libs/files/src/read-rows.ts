import { parseCsvText } from './csv/parse';
import { FileRejected } from './errors';
import { type FileFormat, formatLabel } from './format';
import { MAX_COLUMNS, type ReadLimits, resolveLimits } from './limits';
import type { ByteSource } from './source';
import { decodeText } from './text/decode';
import { parseTxtLines } from './text/txt';
import { readXlsxRows } from './xlsx/read-xlsx';

const BOM = '\uFEFF';

/**
 * Raw rows of the file, header row included, as arrays of strings. Cells lose a leading BOM and are not
 * otherwise altered; rows whose cells are all blank are skipped (spreadsheets leave them behind).
 * TXT: each non-blank line is [line.trim()]. CSV: RFC 4180, delimiter guessed among , ; tab |.
 * XLSX: the first worksheet. Memory stays bounded whatever the file size.
 *
 * `maxRows` counts data rows; as this function cannot know whether the first row is a header it allows one
 * more row than that (openTable applies the exact limit).
 */
export async function* readRows(
  source: ByteSource,
  format: FileFormat,
  limits?: Partial<ReadLimits>,
): AsyncGenerator<string[]> {
  for await (const batch of readRowBatches(source, format, limits)) yield* batch;
}

/**
 * The rows of readRows, a batch (a few thousand rows, never empty) at a time: for callers that go through
 * millions of rows, which then pay the asynchronous iteration once per batch instead of once per row.
 */
export async function* readRowBatches(
  source: ByteSource,
  format: FileFormat,
  limits?: Partial<ReadLimits>,
): AsyncGenerator<string[][]> {
  const resolved = resolveLimits(limits);
  const maxRows = resolved.maxRows === undefined ? Infinity : resolved.maxRows + 1;
  let count = 0;
  for await (const batch of rowBatches(source, format, resolved)) {
    const rows: string[][] = [];
    let refused: FileRejected | undefined;
    for (const row of batch) {
      if (isBlank(row)) continue;
      if (row.length > MAX_COLUMNS) {
        refused = new FileRejected(
          'too_many_columns',
          `The file has a row with more than ${MAX_COLUMNS} columns`,
        );
        break;
      }
      count += 1;
      if (count > maxRows) {
        refused = tooManyRows(resolved.maxRows ?? 0);
        break;
      }
      if (row.length > 0 && row[0].startsWith(BOM)) row[0] = row[0].slice(1);
      rows.push(row);
    }
    // The rows before a refused one come out first, as they would one by one.
    if (rows.length > 0) yield rows;
    if (refused) throw refused;
  }
}

export function tooManyRows(maxRows: number): FileRejected {
  return new FileRejected(
    'too_many_rows',
    `The file holds more than ${maxRows.toLocaleString('en-US')} rows; split it into smaller files`,
    { maxRows },
  );
}

function rowBatches(source: ByteSource, format: FileFormat, limits: ReadLimits): AsyncIterable<string[][]> {
  const label = formatLabel(format);
  switch (format) {
    case 'csv':
      return parseCsvText(decodeText(source, { maxLineBytes: limits.maxLineBytes, label }), {
        maxRecordChars: limits.maxLineBytes,
        label,
      });
    case 'txt':
      return parseTxtLines(decodeText(source, { maxLineBytes: limits.maxLineBytes, label }));
    case 'xlsx':
      return readXlsxRows(source, limits);
  }
}

function isBlank(row: string[]): boolean {
  for (const cell of row) {
    // trim() removes a stray BOM too.
    if (cell.trim() !== '') return false;
  }
  return true;
}
