import { type XmlElement, type XmlHandler, attribute, decodeOoxmlEscapes } from './xml';

/** Excel's last column (XFD). */
export const MAX_COLUMNS = 16_384;

/** A cell as the worksheet stores it: shared strings are still indexes into the table. */
export interface RawCell {
  /** The `t` attribute: `s` (shared string), `inlineStr`, `b`, `str`, `e`, or `n` (a number, the default). */
  type: string;
  /** The text of `<v>`. */
  value: string;
  /** The text of `<is>` (an inline string), without phonetic hints. */
  inline: string;
}

/** "C5" -> 2. Only the leading letters matter; undefined for none, or for a column past Excel's last. */
export function columnIndex(reference: string): number | undefined {
  let column = 0;
  for (let i = 0; i < reference.length; i++) {
    const code = reference.charCodeAt(i) | 0x20; // lower-case ASCII letters
    if (code < 0x61 || code > 0x7a) break;
    column = column * 26 + (code - 0x60);
    if (column > MAX_COLUMNS) return undefined;
  }
  return column < 1 ? undefined : column - 1;
}

/**
 * The text of a cell, as the file service reads it: shared and inline strings resolved, numbers, dates in ISO
 * form and error values (#N/A) exactly as stored, booleans as TRUE/FALSE.
 */
export function cellText(cell: RawCell | undefined, sharedStrings: readonly string[]): string {
  if (!cell) return '';
  switch (cell.type) {
    case 's':
      return sharedStrings[Number.parseInt(cell.value, 10)] ?? '';
    case 'inlineStr':
      return decodeOoxmlEscapes(cell.inline);
    case 'b':
      return cell.value.trim() === '1' ? 'TRUE' : 'FALSE';
    case 'str':
      return decodeOoxmlEscapes(cell.value);
    default:
      return cell.value;
  }
}

/**
 * Reads worksheet XML into its rows' cells: each cell of `<sheetData>` with its column (from its reference
 * "C5", or the one after the previous cell when it has none), its type and its stored text. What makes a row
 * of rows, and how shared strings are resolved, is the subclass's: it is told of each row's start, each cell
 * and each row's end. Phonetic hints (`<rPh>`) are not part of an inline string.
 */
export abstract class WorksheetHandler implements XmlHandler {
  /** Set at the end of `<sheetData>`: the rest of the part holds no cells. */
  finished = false;
  private inSheetData = false;
  private nextColumn = 0;
  private column = 0;
  private cell: RawCell | undefined;
  private capture: 'none' | 'value' | 'inline' = 'none';
  private inInline = false;
  private inPhonetic = false;

  protected abstract startRow(): void;
  protected abstract endCell(column: number, cell: RawCell): void;
  protected abstract endRow(): void;

  /** A cell reference with no column, or one past Excel's last: the file is not one Excel writes. */
  protected refuseReference(reference: string): never {
    throw new Error(`cell reference ${reference.slice(0, 20)}`);
  }

  open(element: XmlElement): void {
    switch (element.name) {
      case 'sheetData':
        this.inSheetData = true;
        break;
      case 'row':
        this.nextColumn = 0;
        this.startRow();
        break;
      case 'c': {
        const reference = attribute(element, 'r');
        const column = reference ? columnIndex(reference) : this.nextColumn;
        if (column === undefined) this.refuseReference(reference ?? '');
        this.column = column;
        this.nextColumn = column + 1;
        this.cell = { type: attribute(element, 't') ?? 'n', value: '', inline: '' };
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
        if (this.cell && this.inSheetData) this.endCell(this.column, this.cell);
        this.cell = undefined;
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
    if (!this.cell) return;
    if (this.capture === 'value') this.cell.value += text;
    else if (this.capture === 'inline') this.cell.inline += text;
  }
}
