import Papa from 'papaparse';

export type Newline = '\r\n' | '\n' | '\r';

export interface CsvDialect {
  delimiter: string;
  newline: Newline;
}

/** The delimiters customers' spreadsheets actually use; ";" is Excel's in many European locales. */
const CANDIDATE_DELIMITERS = [',', ';', '\t', '|'];

/** What our own writer produces (RFC 4180). */
export const RFC4180: CsvDialect = { delimiter: ',', newline: '\r\n' };

/**
 * Guesses delimiter and line ending from the start of the file with papaparse's own detection (the most
 * consistent field count over the first rows wins; a single-column file falls back to ",").
 */
export function detectDialect(sample: string): CsvDialect {
  const lastBreak = Math.max(sample.lastIndexOf('\n'), sample.lastIndexOf('\r'));
  // A cut-off last line would skew the field counts the guess relies on.
  const complete = lastBreak > 0 ? sample.slice(0, lastBreak + 1) : sample;
  const { meta } = Papa.parse<string[]>(complete, {
    preview: 10,
    delimitersToGuess: CANDIDATE_DELIMITERS,
    // A blank line (the one after the final line break, at least) would spoil the field-count consistency.
    skipEmptyLines: 'greedy',
  });
  const newline = meta.linebreak === '\r\n' || meta.linebreak === '\r' ? meta.linebreak : '\n';
  const delimiter = CANDIDATE_DELIMITERS.includes(meta.delimiter) ? meta.delimiter : ',';
  return { delimiter, newline };
}
