import { type ColumnChoice, SAMPLE_DATA_ROWS, chooseEmailColumn } from './columns';
import type { FileFormat } from './format';
import type { ReadLimits } from './limits';
import { readRows, tooManyRows } from './read-rows';
import type { ByteSource } from './source';

export interface TableRow {
  /** 1-based position among the data rows (header and blank rows not counted): consecutive, input order. */
  rowNumber: number;
  /** The row's cells as read (not padded). */
  cells: string[];
  /** The chosen column's cell, trimmed ('' when the row is shorter). */
  email: string;
}

export interface OpenTableOptions {
  emailColumn?: string;
  limits?: Partial<ReadLimits>;
}

export interface Table {
  column: ColumnChoice;
  /** Data rows, header excluded. Iterate once, to the end or until you stop (breaking out releases the file). */
  rows: AsyncIterable<TableRow>;
  /** Releases the source (and an XLSX's temporary file) when `rows` will not be iterated to the end. */
  close(): Promise<void>;
}

/**
 * Reads the file once: buffers the first rows (header plus up to 100 data rows) until the address column is
 * chosen, then hands out the data rows with their row numbers. Errors later in the file (broken quoting, too
 * many rows) surface while iterating `rows`. When the column cannot be chosen the source is released and the
 * FileRejected is thrown from here.
 */
export async function openTable(
  source: ByteSource,
  format: FileFormat,
  options: OpenTableOptions = {},
): Promise<Table> {
  const maxRows = options.limits?.maxRows;
  const iterator = readRows(source, format, options.limits);
  const release = async (): Promise<void> => {
    await iterator.return(undefined);
  };
  const sample: string[][] = [];
  let exhausted = false;
  let column: ColumnChoice;
  try {
    while (sample.length < SAMPLE_DATA_ROWS + 1) {
      const next = await iterator.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      sample.push(next.value);
    }
    column = chooseEmailColumn(sample, options.emailColumn);
  } catch (error) {
    await release();
    throw error;
  }

  async function* dataRows(): AsyncGenerator<TableRow> {
    let rowNumber = 0;
    const emit = (cells: string[]): TableRow => {
      rowNumber += 1;
      if (maxRows !== undefined && rowNumber > maxRows) throw tooManyRows(maxRows);
      return { rowNumber, cells, email: (cells[column.index] ?? '').trim() };
    };
    try {
      for (const cells of column.hasHeader ? sample.slice(1) : sample) yield emit(cells);
      sample.length = 0;
      if (exhausted) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield emit(next.value);
      }
    } finally {
      await release();
    }
  }

  const rows = dataRows();
  const close = async (): Promise<void> => {
    await rows.return(undefined);
    await release();
  };
  return { column, rows, close };
}
