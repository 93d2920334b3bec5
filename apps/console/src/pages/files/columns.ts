// The address column of a file, guessed in the browser from its first rows before the upload, so the person
// sees which column will be verified and can pick another. The choice is the service's own rule (contracts
// email-column.ts, which libs/files applies when no column is named); the console then names the column it
// shows, so what is sent is what was seen.
import { EMAIL_COLUMN_SAMPLE_DATA_ROWS, detectEmailColumn, emailColumnName } from '@emailverify/contracts';

/** How many rows the guess reads: a header and up to 100 data rows, as the service does. */
export const SAMPLE_ROWS = EMAIL_COLUMN_SAMPLE_DATA_ROWS + 1;

export interface ColumnOption {
  /** 0-based position in the row. */
  index: number;
  /** What the person reads: the header's label, or "Column 2" for a file without one. */
  label: string;
  /** The `email_column` form field that names this column to the service. */
  field: string;
  /** Cells of the sampled data rows that look like an address. */
  addresses: number;
  /** The first few non-empty data cells, to recognise the column by. */
  sample: string[];
}

export interface ColumnGuess {
  /** Whether the first row holds labels rather than data. */
  hasHeader: boolean;
  columns: ColumnOption[];
  /** Index of the column the guess chose. */
  chosen: number;
}

/**
 * Whether a cell reads as an e-mail address: one "@", a local part and a dotted domain, no spaces. Looser than
 * the service's parser (which needs Node.js) on purpose: it only ranks columns, the service decides what is valid.
 */
export function looksLikeAddress(cell: string | undefined): boolean {
  if (cell === undefined) return false;
  return /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:".]{2,}$/.test(cell.trim());
}

/**
 * The address column of a file from its first rows (as a CSV reader gives them), or undefined when no cell
 * looks like an address (the service would refuse the file: "The file holds no e-mail address").
 */
export function guessEmailColumn(firstRows: string[][]): ColumnGuess | undefined {
  const rows = firstRows
    .slice(0, SAMPLE_ROWS)
    .filter((row) => row.some((cell) => cell.trim() !== ''))
    // The service's readers drop a leading byte-order mark; papaparse keeps it.
    .map((row, i) => (i === 0 ? row.map((cell, j) => (j === 0 ? cell.replace(/^\uFEFF/, '') : cell)) : row));
  const found = detectEmailColumn(rows, looksLikeAddress);
  if (!found) return undefined;
  const { hasHeader, width, index } = found;
  const first = rows[0]!;
  const data = hasHeader ? rows.slice(1) : rows;
  const columns: ColumnOption[] = Array.from({ length: width }, (_, i) => {
    const label = hasHeader ? (first[i] ?? '').trim() : '';
    const cells = data.map((row) => (row[i] ?? '').trim());
    return {
      index: i,
      label: label || `Column ${i + 1}`,
      field: emailColumnName(first, hasHeader, i),
      addresses: cells.filter(looksLikeAddress).length,
      sample: cells.filter((cell) => cell !== '').slice(0, 3),
    };
  });
  return { hasHeader, columns, chosen: index };
}

export type FileKind = 'csv' | 'txt' | 'xlsx';

/** The kind of file by its extension, as the service reads it (case-insensitive); undefined for anything else. */
export function fileKind(name: string): FileKind | undefined {
  const extension = /\.([a-z0-9]+)\s*$/i.exec(name)?.[1]?.toLowerCase();
  return extension === 'csv' || extension === 'txt' || extension === 'xlsx' ? extension : undefined;
}
