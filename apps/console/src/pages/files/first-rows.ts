// The first rows of a file, read in the browser for the column picker: CSV and TXT with papaparse (which guesses
// the delimiter as the service's reader does), XLSX with the console's own small reader (xlsx-rows.ts).
import Papa from 'papaparse';
import { SAMPLE_ROWS, type FileKind } from './columns';
import { readXlsxFirstRows } from './xlsx-rows';

export function readFirstRows(file: File, kind: FileKind): Promise<string[][]> {
  if (kind === 'xlsx') return readXlsxFirstRows(file, SAMPLE_ROWS);
  return new Promise((resolve, reject) => {
    Papa.parse<string[]>(file, {
      preview: SAMPLE_ROWS,
      skipEmptyLines: 'greedy',
      worker: false,
      complete: (result) => resolve(result.data),
      error: (error) => reject(error),
    });
  });
}
