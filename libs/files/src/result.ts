import type { ChunkItemResult } from '@emailverify/contracts';
import { formatCsvField } from './csv/writer';
export const VERIFICATION_COLUMNS = [
  'email',
  'status',
  'reason',
  'score',
  'is_deliverable',
  'is_disposable',
  'is_catchall',
  'is_role',
  'is_free',
  'domain',
  'mx_records',
  'domain_suggestion',
  'smtp_check',
] as const;

/**
 * The columns a job uploaded with `enrich=true` adds after VERIFICATION_COLUMNS: whether the address has a
 * Gravatar, and the domain's age in days (RDAP; 0 when unknown). Other jobs' files never have them.
 */
export const ENRICHMENT_COLUMNS = ['has_gravatar', 'domain_age'] as const;

export type VerificationColumn = (typeof VERIFICATION_COLUMNS)[number] | (typeof ENRICHMENT_COLUMNS)[number];

/**
 * The verification cells of a result row: a chunk result without what it cost. The Gravatar and domain-age
 * fields are shown only in an enriched job's file; a result without them shows false and 0 there.
 */
export type ResultCells = Omit<ChunkItemResult, 'creditsUsed'>;

/** The verification columns of a job's result file, in order. */
function verificationColumns(enrich: boolean): VerificationColumn[] {
  return enrich ? [...VERIFICATION_COLUMNS, ...ENRICHMENT_COLUMNS] : [...VERIFICATION_COLUMNS];
}

/**
 * Header of the result file: the original headers first when preserveOriginal, then the verification columns.
 * A verification column whose name clashes (trimmed, case-insensitive) with an original one is prefixed
 * `verify_`, again if `verify_x` is taken too, so every name in the header is distinct from the originals.
 */
export function resultHeader(originalHeaders: string[], preserveOriginal: boolean, enrich = false): string[] {
  if (!preserveOriginal) return verificationColumns(enrich);
  const taken = new Set(originalHeaders.map((name) => name.trim().toLowerCase()));
  const verification = verificationColumns(enrich).map((column) => {
    let name: string = column;
    while (taken.has(name.toLowerCase())) name = `verify_${name}`;
    return name;
  });
  return [...originalHeaders, ...verification];
}

/**
 * One result row: the original cells padded (or cut) to `width`, the width of the original header, when
 * preserveOriginal; then the verification cells in VERIFICATION_COLUMNS order (mx_records joined with ";",
 * booleans as true/false), and with `enrich` the ENRICHMENT_COLUMNS. Formula escaping is the writer's job.
 */
export function resultRow(
  original: string[],
  width: number,
  result: ResultCells,
  preserveOriginal: boolean,
  enrich = false,
): string[] {
  const cells: string[] = [];
  if (preserveOriginal) {
    for (let i = 0; i < width; i++) cells.push(original[i] ?? '');
  }
  cells.push(
    result.email,
    result.status,
    result.reason,
    String(result.score),
    String(result.isDeliverable),
    String(result.isDisposable),
    String(result.isCatchall),
    String(result.isRole),
    String(result.isFree),
    result.domain,
    result.mxRecords.join(';'),
    result.domainSuggestion,
    String(result.smtpCheck),
  );
  if (enrich) cells.push(String(result.hasGravatar ?? false), String(result.domainAge ?? 0));
  return cells;
}

/**
 * The verification cells of a result as CSV fields (formatCsvFields of resultRow's last cells, without the line
 * end): what a result adds to each of its rows, formatted once for an address that several rows hold.
 */
export function resultFields(result: ResultCells, enrich = false): string {
  // Joined rather than concatenated: join makes one flat string, where a concatenation is a tree of its parts
  // that takes about four times the memory for as long as a merge keeps the result of a repeated address.
  const fields = [
    formatCsvField(result.email),
    formatCsvField(result.status),
    formatCsvField(result.reason),
    formatCsvField(String(result.score)),
    result.isDeliverable,
    result.isDisposable,
    result.isCatchall,
    result.isRole,
    result.isFree,
    formatCsvField(result.domain),
    formatCsvField(result.mxRecords.join(';')),
    formatCsvField(result.domainSuggestion),
    result.smtpCheck,
  ];
  if (enrich) fields.push(result.hasGravatar ?? false, String(result.domainAge ?? 0));
  return fields.join(',');
}

/**
 * A result row as its CSV line, the same text as formatCsvRow(resultRow(original, width, result, preserve)),
 * from the row's original cells and its result's fields (resultFields) without building the row's cells.
 */
export function resultLine(
  original: string[],
  width: number,
  fields: string,
  preserveOriginal: boolean,
): string {
  if (!preserveOriginal || width === 0) return `${fields}\r\n`;
  let line = '';
  for (let i = 0; i < width; i++) line += `${formatCsvField(original[i] ?? '')},`;
  return `${line}${fields}\r\n`;
}
