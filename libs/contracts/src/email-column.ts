// Which column of an uploaded file holds the addresses (the upload's `email_column`, or auto-detection when it
// names none). The file service applies this rule to the first rows it reads; the web console applies it to the
// rows it reads in the browser before the upload, so the column it shows is the one the service would take.
// Pure on purpose (no Node.js module): what counts as an address is the caller's test, since the service parses
// addresses strictly and the browser cannot run that parser.

/** How many data rows after the first row the choice looks at. */
export const EMAIL_COLUMN_SAMPLE_DATA_ROWS = 100;

/** Labels people give address columns, compared by normaliseColumnLabel (no case, spaces, _ - . : ( ) or accents). */
export const EMAIL_COLUMN_LABELS: ReadonlySet<string> = new Set([
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

/** Whether a cell holds an e-mail address, by the caller's standard. */
export type AddressTest = (cell: string) => boolean;

export interface EmailColumn {
  /** 0-based index of the address column. */
  index: number;
  /** Whether the first row holds column labels rather than data. */
  hasHeader: boolean;
  /** Cells in the widest sampled row. */
  width: number;
}

type Rows = readonly (readonly string[])[];

export function normaliseColumnLabel(cell: string): string {
  return cell
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_.\-:()]/g, '');
}

/** The name of a column without a label: column_1, column_2, … */
export function genericColumnName(index: number): string {
  return `column_${index + 1}`;
}

/**
 * The column holding addresses when the upload names none, from the first rows (the first row plus up to 100
 * data rows), or undefined when no sampled cell is an address:
 * 1. a column labelled like an address column (email, E-mail, email_address, courriel, correo, ...), unless it
 *    holds no address while another column does;
 * 2. else the column holding the most addresses (the leftmost on a tie).
 * The first row is a header when the chosen column holds no address there and the row looks like labels.
 */
export function detectEmailColumn(firstRows: Rows, isAddress: AddressTest): EmailColumn | undefined {
  const rows = sample(firstRows);
  if (rows.length === 0) return undefined;
  const width = widthOf(rows);
  const first = rows[0];
  const counts = new Array<number>(width).fill(0);
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) if (isAddress(row[i])) counts[i] += 1;
  }
  let best = 0;
  for (let i = 1; i < width; i++) if (counts[i] > counts[best]) best = i;
  if (counts[best] === 0) return undefined;

  const labels = first.map(normaliseColumnLabel);
  const named = labels.findIndex((label) => EMAIL_COLUMN_LABELS.has(label));
  const fuzzy = named >= 0 ? named : labels.findIndex((label) => label.includes('email'));
  if (fuzzy >= 0 && counts[fuzzy] > 0 && !isAddress(first[fuzzy])) {
    return { index: fuzzy, hasHeader: true, width };
  }
  return decideHeader(rows, width, best, isAddress);
}

/**
 * The column an upload's `email_column` names, or undefined when the file has none of that name: a first-row
 * label (trimmed, case-insensitive; the leftmost of equal labels), else column_N, else the only column of a
 * header-less one-column file (a TXT list) whatever the name.
 */
export function findEmailColumn(
  firstRows: Rows,
  name: string,
  isAddress: AddressTest,
): EmailColumn | undefined {
  const rows = sample(firstRows);
  const wanted = name.trim().toLowerCase();
  if (rows.length === 0 || !wanted) return undefined;
  const width = widthOf(rows);
  const first = rows[0];
  const byLabel = first.findIndex((cell) => cell.trim().toLowerCase() === wanted);
  if (byLabel >= 0) return { index: byLabel, hasHeader: true, width };
  const generic = /^column_(\d+)$/.exec(wanted);
  const index = generic ? Number(generic[1]) - 1 : -1;
  if (index >= 0 && index < width) return decideHeader(rows, width, index, isAddress);
  if (width === 1 && !firstRowLooksLikeLabels(first, isAddress))
    return decideHeader(rows, width, 0, isAddress);
  return undefined;
}

/** The `email_column` value by which findEmailColumn finds column `index` again: its label, else column_N. */
export function emailColumnName(first: readonly string[], hasHeader: boolean, index: number): string {
  const label = hasHeader ? (first[index]?.trim() ?? '') : '';
  const key = label.toLowerCase();
  if (label && first.findIndex((cell) => cell.trim().toLowerCase() === key) === index) return label;
  return genericColumnName(index);
}

/** Whether some cell of the first row reads as a label (short text without "@") and none as an address. */
export function firstRowLooksLikeLabels(first: readonly string[], isAddress: AddressTest): boolean {
  return first.some((_, i) => looksLikeLabels(first, i, isAddress));
}

function sample(rows: Rows): Rows {
  return rows.slice(0, EMAIL_COLUMN_SAMPLE_DATA_ROWS + 1);
}

function widthOf(rows: Rows): number {
  return Math.max(1, ...rows.map((row) => row.length));
}

function decideHeader(rows: Rows, width: number, index: number, isAddress: AddressTest): EmailColumn {
  const first = rows[0];
  const hasHeader = !isAddress(first[index] ?? '') && looksLikeLabels(first, index, isAddress);
  return { index, hasHeader, width };
}

/**
 * Labels are short text without an "@" and no cell of the row is an address. A first row whose address cell is
 * merely invalid (holds an "@") is data, so its row still gets a result.
 */
function looksLikeLabels(first: readonly string[], index: number, isAddress: AddressTest): boolean {
  const cell = (first[index] ?? '').trim();
  if (!cell || cell.includes('@') || cell.length > 100) return false;
  return !first.some((other) => isAddress(other));
}
