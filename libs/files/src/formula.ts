/** Characters that make Excel, LibreOffice or Google Sheets read a cell as a formula (OWASP CSV injection). */
const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * Escapes a cell against spreadsheet formula injection: a cell beginning with =, +, -, @, tab or CR gets a
 * leading single quote, which spreadsheets show as text and hide. Rules (checked by property tests):
 * - the result never begins with a trigger character;
 * - a cell that does not begin with a trigger is returned unchanged (including one beginning with a quote);
 * - idempotent: escapeFormula(escapeFormula(x)) === escapeFormula(x), because the quote is not a trigger, so
 *   result files can be read back and written again (filtered downloads) without piling up quotes.
 * Idempotence costs injectivity: "=1" and "'=1" both come out as "'=1", so the escape cannot be undone
 * exactly; nothing needs to undo it (spreadsheets hide the quote, filtered downloads copy cells as stored).
 */
export function escapeFormula(cell: string): string {
  return cell.length > 0 && TRIGGERS.has(cell[0]) ? `'${cell}` : cell;
}
