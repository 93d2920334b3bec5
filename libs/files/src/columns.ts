import {
  EMAIL_COLUMN_SAMPLE_DATA_ROWS,
  type EmailColumn,
  detectEmailColumn,
  findEmailColumn,
  firstRowLooksLikeLabels,
  genericColumnName,
} from '@emailverify/contracts';
import { parseAddress } from '@emailverify/verification';
import { FileRejected } from './errors';

export interface ColumnChoice {
  /** Whether the first row holds column labels rather than data. */
  hasHeader: boolean;
  /** 0-based index of the address column. */
  index: number;
  /** Its label (trimmed), or column_N when the file has no header or the label is empty. */
  name: string;
  /** Header cells padded to the widest sampled row with column_N, or column_1..column_N when header-less. */
  headers: string[];
}

/** How many data rows the choice looks at. */
export const SAMPLE_DATA_ROWS = EMAIL_COLUMN_SAMPLE_DATA_ROWS;

/**
 * Chooses the address column from the first rows (the first row plus up to 100 data rows) by the rule in
 * contracts (email-column.ts), which the web console applies too, with addresses parsed strictly:
 * 1. `emailColumn` when given (findEmailColumn); absent -> FileRejected naming it and the columns found;
 * 2. else auto-detection (detectEmailColumn); a file with no valid address at all ->
 *    FileRejected('The file holds no e-mail address').
 */
export function chooseEmailColumn(firstRows: string[][], emailColumn?: string): ColumnChoice {
  const rows = firstRows.slice(0, SAMPLE_DATA_ROWS + 1);
  const wanted = emailColumn?.trim();
  if (wanted) {
    const found = findEmailColumn(rows, wanted, isAddress);
    if (found) return choice(rows[0], found);
    throw missingColumn(rows, wanted);
  }
  const detected = detectEmailColumn(rows, isAddress);
  if (!detected) throw new FileRejected('no_address', 'The file holds no e-mail address');
  return choice(rows[0], detected);
}

function choice(first: string[], { index, hasHeader, width }: EmailColumn): ColumnChoice {
  if (!hasHeader) {
    const headers = Array.from({ length: width }, (_, i) => genericColumnName(i));
    return { hasHeader, index, name: headers[index], headers };
  }
  const headers = Array.from({ length: width }, (_, i) => first[i] ?? genericColumnName(i));
  return { hasHeader, index, name: headers[index].trim() || genericColumnName(index), headers };
}

function missingColumn(rows: string[][], wanted: string): FileRejected {
  const first = rows[0] ?? [];
  const width = Math.max(1, ...rows.map((row) => row.length));
  const header = firstRowLooksLikeLabels(first, isAddress);
  const found = Array.from(
    { length: width },
    (_, i) => (header ? first[i]?.trim() : '') || genericColumnName(i),
  );
  return new FileRejected(
    'email_column_missing',
    `The file has no column named "${wanted}"; ` +
      (header ? 'its columns are: ' : 'it has no header row; its columns are: ') +
      found.map((name) => `"${name}"`).join(', '),
    { emailColumn: wanted, columns: found },
  );
}

function isAddress(cell: string): boolean {
  return cell.includes('@') && parseAddress(cell).ok;
}
