// The address column of a file, guessed in the browser from its first rows before the upload, so the person
// sees which column will be verified and can pick another. The service makes the same kind of choice when no
// column is named (libs/files columns.ts: a column labelled like "Email", else the one holding the most
// addresses); the console then names the column it shows, so what is sent is what was seen.

/** How many rows the guess reads: a header and up to 100 data rows, as the service does. */
export const SAMPLE_ROWS = 101;

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

/** Labels people give address columns, compared lower-cased without spaces, _ - . : ( ) and accents. */
const EMAIL_LABELS = new Set([
  'email',
  'emails',
  'mail',
  'emailaddress',
  'emailaddresses',
  'mailaddress',
  'emailid',
  'courriel',
  'adressecourriel',
  'adresseemail',
  'adressemail',
  'adresseelectronique',
  'correo',
  'correoelectronico',
  'emailadresse',
  'epost',
  'epostadresse',
  'posta',
  'postaelettronica',
  'indirizzoemail',
  'endereco',
  'enderecodeemail',
  'enderecoemail',
  'email1',
  'primaryemail',
  'workemail',
  'businessemail',
  'contactemail',
]);

/**
 * Whether a cell reads as an e-mail address: one "@", a local part and a dotted domain, no spaces. Looser than
 * the service's parser on purpose: it only ranks columns, the service decides what is valid.
 */
export function looksLikeAddress(cell: string | undefined): boolean {
  if (cell === undefined) return false;
  return /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:".]{2,}$/.test(cell.trim());
}

export function normaliseLabel(cell: string): string {
  return cell
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_.\-:()]/g, '');
}

/** Labels are short text without an "@", in a row where no cell is an address. */
function rowLooksLikeLabels(first: string[]): boolean {
  if (first.some(looksLikeAddress)) return false;
  return first.some((cell) => {
    const text = cell.trim();
    return text !== '' && !text.includes('@') && text.length <= 100;
  });
}

function genericField(index: number): string {
  return `column_${index + 1}`;
}

/**
 * The address column of a file from its first rows (as a CSV reader gives them), or undefined when no cell
 * looks like an address (the service would refuse the file: "The file holds no e-mail address").
 */
export function guessEmailColumn(firstRows: string[][]): ColumnGuess | undefined {
  const rows = firstRows.slice(0, SAMPLE_ROWS).filter((row) => row.some((cell) => cell.trim() !== ''));
  if (rows.length === 0) return undefined;
  const width = Math.max(1, ...rows.map((row) => row.length));
  const first = rows[0]!.map((cell, i) => (i === 0 ? cell.replace(/^\uFEFF/, '') : cell));
  const hasHeader = rowLooksLikeLabels(first);
  const data = hasHeader ? rows.slice(1) : rows;

  const labels = first.map((cell) => cell.trim());
  const unique = (label: string) =>
    labels.filter((other) => other.toLowerCase() === label.toLowerCase()).length === 1;
  const columns: ColumnOption[] = Array.from({ length: width }, (_, index) => {
    const label = hasHeader ? (labels[index] ?? '') : '';
    const cells = data.map((row) => (row[index] ?? '').trim());
    return {
      index,
      label: label || `Column ${index + 1}`,
      field: label && unique(label) ? label : genericField(index),
      addresses: cells.filter(looksLikeAddress).length,
      sample: cells.filter((cell) => cell !== '').slice(0, 3),
    };
  });

  let best = 0;
  for (const column of columns) if (column.addresses > columns[best]!.addresses) best = column.index;
  if (columns[best]!.addresses === 0) return undefined;

  if (hasHeader) {
    const normalised = first.map(normaliseLabel);
    const named = normalised.findIndex((label) => EMAIL_LABELS.has(label));
    const fuzzy = named >= 0 ? named : normalised.findIndex((label) => label.includes('email'));
    if (fuzzy >= 0 && columns[fuzzy]!.addresses > 0) return { hasHeader, columns, chosen: fuzzy };
  }
  return { hasHeader, columns, chosen: best };
}

export type FileKind = 'csv' | 'txt' | 'xlsx';

/** The kind of file by its extension, as the service reads it (case-insensitive); undefined for anything else. */
export function fileKind(name: string): FileKind | undefined {
  const extension = /\.([a-z0-9]+)\s*$/i.exec(name)?.[1]?.toLowerCase();
  return extension === 'csv' || extension === 'txt' || extension === 'xlsx' ? extension : undefined;
}
