export { type ColumnChoice, SAMPLE_DATA_ROWS, chooseEmailColumn } from './columns';
export { CsvWriter, type CsvWriterOptions, formatCsvFields, formatCsvRow } from './csv/writer';
export { type ReadCsvOptions, readCsv } from './csv/read-csv';
export { FileRejected, type FileRejectionReason } from './errors';
export { type FileFormat, formatFromName } from './format';
export { escapeFormula } from './formula';
export { DEFAULT_READ_LIMITS, MAX_COLUMNS, type ReadLimits } from './limits';
export { readRowBatches, readRows } from './read-rows';
export {
  ENRICHMENT_COLUMNS,
  type ResultCells,
  VERIFICATION_COLUMNS,
  type VerificationColumn,
  resultFields,
  resultHeader,
  resultLine,
  resultRow,
} from './result';
export type { ByteSource } from './source';
export { type OpenTableOptions, type Table, type TableRow, openTable } from './table';
