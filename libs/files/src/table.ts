import { type ColumnChoice, SAMPLE_DATA_ROWS, chooseEmailColumn } from './columns';
import type { FileFormat } from './format';
import type { ReadLimits } from './limits';
import { readRowBatches, tooManyRows } from './read-rows';
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
  /**
   * Data rows, header excluded. Iterate once, to the end or until you stop (breaking out releases the file).
   * Iterate either `rows` or `batches`, not both: they read the same file.
   */
  rows: AsyncIterable<TableRow>;
  /** The same data rows as their cells, a batch at a time (cheaper over millions of rows). */
  batches: AsyncIterable<string[][]>;
  /** Releases the source (and an XLSX's temporary file) when `rows` will not be iterated to the end. */
  close(): Promise<void>;
}

/**
 * Reads the file once: buffers the first rows (header plus up to 100 data rows) until the address column is
 * chosen, then hands out the data rows with their row numbers. Errors later in the file (broken quoting, too
 * many rows) surface while iterating `rows` or `batches`. When the column cannot be chosen the source is released and the
 * FileRejected is thrown from here.
 */
export async function openTable(
  source: ByteSource,
  format: FileFormat,
  options: OpenTableOptions = {},
): Promise<Table> {
  const maxRows = options.limits?.maxRows;
  const iterator = readRowBatches(source, format, options.limits);
  const release = async (): Promise<void> => {
    await iterator.return(undefined);
  };
  // The first rows (header and sample) decide the column; they and the rest of their batch come out first.
  const first: string[][] = [];
  let exhausted = false;
  let column: ColumnChoice;
  try {
    while (first.length < SAMPLE_DATA_ROWS + 1) {
      const next = await iterator.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      first.push(...next.value);
    }
    column = chooseEmailColumn(first.slice(0, SAMPLE_DATA_ROWS + 1), options.emailColumn);
  } catch (error) {
    await release();
    throw error;
  }

  let consumed = false;
  const claim = (): void => {
    if (consumed) throw new Error('openTable: iterate either rows or batches, once');
    consumed = true;
  };

  async function* dataBatches(): AsyncGenerator<string[][]> {
    let count = 0;
    const checked = (batch: string[][]): string[][] => {
      count += batch.length;
      if (maxRows !== undefined && count > maxRows) throw tooManyRows(maxRows);
      return batch;
    };
    try {
      const head = column.hasHeader ? first.slice(1) : first.slice();
      first.length = 0;
      if (head.length > 0) yield checked(head);
      if (exhausted) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield checked(next.value);
      }
    } finally {
      await release();
    }
  }

  const batches = (async function* (): AsyncGenerator<string[][]> {
    claim();
    yield* dataBatches();
  })();

  const rows = (async function* (): AsyncGenerator<TableRow> {
    claim();
    let rowNumber = 0;
    for await (const batch of dataBatches()) {
      for (const cells of batch) {
        rowNumber += 1;
        yield { rowNumber, cells, email: (cells[column.index] ?? '').trim() };
      }
    }
  })();

  const close = async (): Promise<void> => {
    await rows.return(undefined);
    await batches.return(undefined);
    await release();
  };
  return { column, rows, batches, close };
}
