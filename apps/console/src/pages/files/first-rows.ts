// The first rows of a file, read in the browser for the column picker: CSV and TXT with papaparse (which guesses
// the delimiter as the service's reader does), XLSX with fflate and saxes (xlsx-rows.ts), loaded only when an
// XLSX file is chosen.
import Papa from 'papaparse';
import { SAMPLE_ROWS, type FileKind } from './columns';

export async function readFirstRows(file: File, kind: FileKind): Promise<string[][]> {
  if (kind === 'xlsx') {
    const { readXlsxFirstRows } = await import('./xlsx-rows');
    return readXlsxFirstRows(file, SAMPLE_ROWS);
  }
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
