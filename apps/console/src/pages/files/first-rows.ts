// The first rows of a CSV or TXT file, read in the browser (papaparse guesses the delimiter as the service's
// reader does), for the column picker. XLSX files are not read here: the console has no spreadsheet reader, so
// their column is the one the service detects, shown once the upload is accepted.
import Papa from 'papaparse';
import { SAMPLE_ROWS } from './columns';

export function readFirstRows(file: File): Promise<string[][]> {
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
