import { FileRejected } from '../errors';
import { MAX_COLUMNS } from '../limits';
import { type XmlElement, type XmlHandler, attribute, decodeOoxmlEscapes } from './xml';

type Capture = 'none' | 'value' | 'inline';

/**
 * Turns worksheet XML into rows of strings: shared and inline strings resolved, numbers kept as the text Excel
 * stored, booleans as TRUE/FALSE, empty cells filling the gaps left by cell references ("C5" is the third
 * column). Rows the sheet skips are simply absent. Completed rows wait in `rows` until the reader drains them.
 */
export class SheetCollector implements XmlHandler {
  rows: string[][] = [];
  finished = false;
  private inSheetData = false;
  private cells: string[] = [];
  private width = 0;
  private nextColumn = 0;
  private column = 0;
  private type = 'n';
  private capture: Capture = 'none';
  private inInline = false;
  private inPhonetic = false;
  private value = '';
  private inline = '';

  constructor(private readonly sharedStrings: readonly string[]) {}

  open(element: XmlElement): void {
    switch (element.name) {
      case 'sheetData':
        this.inSheetData = true;
        break;
      case 'row':
        this.cells = [];
        this.width = 0;
        this.nextColumn = 0;
        break;
      case 'c': {
        const reference = attribute(element, 'r');
        this.column = reference ? columnOf(reference) : this.nextColumn;
        this.type = attribute(element, 't') ?? 'n';
        this.value = '';
        this.inline = '';
        break;
      }
      case 'v':
        this.capture = 'value';
        break;
      case 'is':
        this.inInline = true;
        break;
      case 'rPh':
        this.inPhonetic = true;
        break;
      case 't':
        if (this.inInline && !this.inPhonetic) this.capture = 'inline';
        break;
    }
  }

  close(name: string): void {
    switch (name) {
      case 'v':
      case 't':
        this.capture = 'none';
        break;
      case 'is':
        this.inInline = false;
        break;
      case 'rPh':
        this.inPhonetic = false;
        break;
      case 'c':
        if (this.inSheetData) this.endCell();
        break;
      case 'row':
        if (this.inSheetData) this.endRow();
        break;
      case 'sheetData':
        this.inSheetData = false;
        this.finished = true;
        break;
    }
  }

  text(text: string): void {
    if (this.capture === 'value') this.value += text;
    else if (this.capture === 'inline') this.inline += text;
  }

  private endCell(): void {
    this.cells[this.column] = this.cellText();
    this.nextColumn = this.column + 1;
    this.width = Math.max(this.width, this.nextColumn);
  }

  private cellText(): string {
    switch (this.type) {
      case 's':
        return this.sharedStrings[Number.parseInt(this.value, 10)] ?? '';
      case 'inlineStr':
        return decodeOoxmlEscapes(this.inline);
      case 'b':
        return this.value.trim() === '1' ? 'TRUE' : 'FALSE';
      case 'str':
        return decodeOoxmlEscapes(this.value);
      default:
        // Numbers, dates in ISO form and error values (#N/A) exactly as stored.
        return this.value;
    }
  }

  private endRow(): void {
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
}

/** "C5" -> 2. Only the letters matter; a reference past Excel's last column is refused. */
function columnOf(reference: string): number {
  let column = 0;
  for (let i = 0; i < reference.length; i++) {
    const code = reference.charCodeAt(i) | 0x20; // lower-case ASCII letters
    if (code < 0x61 || code > 0x7a) break;
    column = column * 26 + (code - 0x60);
    if (column > MAX_COLUMNS) break;
  }
  if (column < 1 || column > MAX_COLUMNS) {
    throw new FileRejected(
      'too_many_columns',
      `The XLSX file has a cell reference Excel does not allow (${reference.slice(0, 20)})`,
    );
  }
  return column - 1;
}
