import { type RawCell, WorksheetHandler, cellText } from '@emailverify/spreadsheet';
import { FileRejected } from '../errors';

/**
 * Turns worksheet XML into rows of strings: shared and inline strings resolved, numbers kept as the text Excel
 * stored, booleans as TRUE/FALSE, empty cells filling the gaps left by cell references ("C5" is the third
 * column). Rows the sheet skips are simply absent. Completed rows wait in `rows` until the reader drains them.
 */
export class SheetCollector extends WorksheetHandler {
  rows: string[][] = [];
  private cells: string[] = [];
  private width = 0;

  constructor(private readonly sharedStrings: readonly string[]) {
    super();
  }

  protected override startRow(): void {
    this.cells = [];
    this.width = 0;
  }

  protected override endCell(column: number, cell: RawCell): void {
    this.cells[column] = cellText(cell, this.sharedStrings);
    this.width = Math.max(this.width, column + 1);
  }

  protected override endRow(): void {
    const row: string[] = new Array<string>(this.width);
    let blank = true;
    for (let i = 0; i < this.width; i++) {
      const cell = this.cells[i] ?? '';
      row[i] = cell;
      if (blank && cell.trim() !== '') blank = false;
    }
    // Formatting alone creates rows without values; they are not rows of the customer's list.
    if (!blank) this.rows.push(row);
  }

  protected override refuseReference(reference: string): never {
    throw new FileRejected(
      'too_many_columns',
      `The XLSX file has a cell reference Excel does not allow (${reference.slice(0, 20)})`,
    );
  }
}
