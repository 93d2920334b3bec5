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
export const SAMPLE_DATA_ROWS = 100;

/** Labels customers give address columns, compared after lower-casing and dropping spaces, _ - and dots. */
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
 * Chooses the address column from the first rows (the first row plus up to 100 data rows):
 * 1. `emailColumn` when given, matched trimmed and case-insensitively against the first row's labels (or as
 *    column_N); absent -> FileRejected naming it and the columns found. A header-less one-column file (a TXT
 *    list) is taken as is whatever name was given.
 * 2. else a column labelled like an address column (email, E-mail, email_address, courriel, correo, ...),
 *    unless it holds no address while another column does;
 * 3. else the column holding the most valid addresses (the leftmost on a tie).
 * The first row is a header when the chosen column holds no valid address there and the row looks like labels.
 * A file with no valid address at all -> FileRejected('The file holds no e-mail address').
 */
export function chooseEmailColumn(firstRows: string[][], emailColumn?: string): ColumnChoice {
  const rows = firstRows.slice(0, SAMPLE_DATA_ROWS + 1);
  if (rows.length === 0) throw noAddress();
  const width = Math.max(1, ...rows.map((row) => row.length));
  const first = rows[0];
  const labels = first.map(normaliseLabel);
  const counts = countAddresses(rows, width);

  const wanted = emailColumn?.trim();
  if (wanted) {
    const key = wanted.toLowerCase();
    const byLabel = first.findIndex((cell) => cell.trim().toLowerCase() === key);
    if (byLabel >= 0) return withHeader(first, width, byLabel);
    const generic = /^column_(\d+)$/.exec(key);
    const index = generic ? Number(generic[1]) - 1 : -1;
    if (index >= 0 && index < width) return decideHeader(rows, width, index);
    const header = rowLooksLikeLabels(first);
    if (width === 1 && !header) return decideHeader(rows, width, 0);
    const found = Array.from({ length: width }, (_, i) => (header ? first[i]?.trim() : '') || genericName(i));
    throw new FileRejected(
      'email_column_missing',
      `The file has no column named "${wanted}"; ` +
        (header ? 'its columns are: ' : 'it has no header row; its columns are: ') +
        found.map((name) => `"${name}"`).join(', '),
      { emailColumn: wanted, columns: found },
    );
  }

  const best = bestColumn(counts);
  if (counts[best] === 0) throw noAddress();
  const named = labels.findIndex((label) => EMAIL_LABELS.has(label));
  const fuzzy = named >= 0 ? named : labels.findIndex((label) => label.includes('email'));
  if (fuzzy >= 0 && counts[fuzzy] > 0 && !isAddress(first[fuzzy])) return withHeader(first, width, fuzzy);
  return decideHeader(rows, width, best);
}

function decideHeader(rows: string[][], width: number, index: number): ColumnChoice {
  const first = rows[0];
  if (!isAddress(first[index]) && looksLikeLabels(first, index)) return withHeader(first, width, index);
  const headers = Array.from({ length: width }, (_, i) => genericName(i));
  return { hasHeader: false, index, name: headers[index], headers };
}

function withHeader(first: string[], width: number, index: number): ColumnChoice {
  const headers = Array.from({ length: width }, (_, i) => first[i] ?? genericName(i));
  return { hasHeader: true, index, name: headers[index].trim() || genericName(index), headers };
}

/**
 * Labels are short text without an "@" and no cell of the row is an address. A first row whose address
 * cell is merely invalid (holds an "@") is data, so its row still gets a result.
 */
function looksLikeLabels(first: string[], index: number): boolean {
  const cell = (first[index] ?? '').trim();
  if (!cell || cell.includes('@') || cell.length > 100) return false;
  return !first.some(isAddress);
}

function rowLooksLikeLabels(first: string[]): boolean {
  return first.some((_, i) => looksLikeLabels(first, i));
}

function countAddresses(rows: string[][], width: number): number[] {
  const counts = new Array<number>(width).fill(0);
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (isAddress(row[i])) counts[i] += 1;
    }
  }
  return counts;
}

function bestColumn(counts: number[]): number {
  let best = 0;
  for (let i = 1; i < counts.length; i++) if (counts[i] > counts[best]) best = i;
  return best;
}

function isAddress(cell: string | undefined): boolean {
  return cell !== undefined && cell.includes('@') && parseAddress(cell).ok;
}

function normaliseLabel(cell: string): string {
  return cell
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_.\-:()]/g, '');
}

function genericName(index: number): string {
  return `column_${index + 1}`;
}

function noAddress(): FileRejected {
  return new FileRejected('no_address', 'The file holds no e-mail address');
}
