// The first rows of an XLSX file's first worksheet, read in the browser for the column picker: fflate unzips the
// file as it streams from disk and saxes parses the parts it needs (the package and workbook relationships, the
// workbook, the first worksheet, the shared strings) as they inflate. Reading stops once the rows needed and
// the strings they use are in hand, however large the sheet; parts not needed are passed over without being
// inflated. Anything unexpected is an error, and the console then leaves the choice of column to the service.
// The cells and strings are read by the rules the service reads them by (@emailverify/spreadsheet).
import { Unzip, UnzipInflate, type FlateError, type UnzipDecoder, type UnzipFile } from 'fflate';
import {
  type RawCell,
  type Relationship,
  SharedStringsHandler,
  WorksheetHandler,
  type XmlElement,
  type XmlHandler,
  attribute,
  cellText,
  localName,
  relationshipOf,
} from '@emailverify/spreadsheet';
import { SaxesParser } from 'saxes';

/** The shared strings kept while it is not yet known which the rows use (Excel writes the table after the sheets). */
const MAX_SHARED_STRINGS_CHARS = 8_000_000;
const DEFAULT_WORKBOOK = 'xl/workbook.xml';

/** Takes one part's XML events; `done` once it has what it needs, so the rest of the part is not inflated. */
interface PartReader extends XmlHandler {
  readonly done: boolean;
}

/** Part names are case-insensitive in OPC, and some writers add a leading slash. */
function partKey(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}

function directoryOf(part: string): string {
  return part.slice(0, part.lastIndexOf('/') + 1);
}

/** A relationship's target as a part name, relative to the part that holds the relationships. */
function resolvePart(source: string, target: string): string {
  if (target.startsWith('/')) return partKey(target);
  const path: string[] = [];
  for (const piece of `${directoryOf(source)}${target}`.split('/')) {
    if (piece === '..') path.pop();
    else if (piece !== '.' && piece !== '') path.push(piece);
  }
  return partKey(path.join('/'));
}

function relationshipsPartOf(part: string): string {
  return `${directoryOf(part)}_rels/${part.slice(part.lastIndexOf('/') + 1)}.rels`;
}

class RelationshipsReader implements PartReader {
  readonly relationships: Relationship[] = [];
  readonly done = false;
  open(element: XmlElement): void {
    const relationship = relationshipOf(element);
    if (relationship) this.relationships.push(relationship);
  }
  close(): void {}
  text(): void {}
}

/** The relationship ids of the workbook's sheets, in tab order. */
class WorkbookReader implements PartReader {
  readonly sheets: string[] = [];
  done = false;
  open(element: XmlElement): void {
    if (element.name === 'sheet') this.sheets.push(attribute(element, 'id') ?? '');
  }
  close(name: string): void {
    if (name === 'sheets') this.done = true;
  }
  text(): void {}
}

/** The shared-strings items, up to `needed`. */
class SharedStringsReader extends SharedStringsHandler implements PartReader {
  readonly strings: string[] = [];
  /** Set when the table was longer than what could be kept. */
  truncated = false;
  ended = false;
  /** Index of the last string the rows use, once known. */
  needed: number | undefined;
  private chars = 0;

  get done(): boolean {
    return this.ended || this.truncated || (this.needed !== undefined && this.strings.length > this.needed);
  }

  protected override addString(value: string): void {
    this.chars += value.length;
    if (this.needed === undefined && this.chars > MAX_SHARED_STRINGS_CHARS) this.truncated = true;
    else this.strings.push(value);
  }

  override close(name: string): void {
    super.close(name);
    if (name === 'sst') this.ended = true;
  }

  /** Whether the strings up to `index` are in hand. */
  has(index: number): boolean {
    return this.strings.length > index || this.ended;
  }
}

/** The first rows of a worksheet as stored; a part that is not a worksheet is given up at its first element. */
class SheetReader extends WorksheetHandler implements PartReader {
  readonly rows: RawCell[][] = [];
  /** Index of the last shared string the rows use, -1 for none. */
  lastShared = -1;
  isSheet: boolean | undefined;
  private row: RawCell[] = [];

  constructor(private readonly maxRows: number) {
    super();
  }

  get done(): boolean {
    return this.finished || this.isSheet === false || this.rows.length >= this.maxRows;
  }

  override open(element: XmlElement): void {
    if (this.isSheet === undefined) this.isSheet = element.name === 'worksheet';
    super.open(element);
  }

  protected override startRow(): void {
    this.row = [];
  }

  protected override endCell(column: number, cell: RawCell): void {
    this.row[column] = cell;
  }

  protected override endRow(): void {
    // Formatting alone creates rows without values; they are not rows of the list, as the service reads it.
    if (this.done || !this.row.some((cell) => cell.value !== '' || cell.inline !== '')) return;
    this.rows.push(this.row);
    for (const cell of this.row) {
      if (cell?.type === 's')
        this.lastShared = Math.max(this.lastShared, Number.parseInt(cell.value, 10) || 0);
    }
  }
}

/**
 * fflate's inflater for zip entries, which can be told to stop: the rest of a part already read enough (or not
 * wanted at all) is passed over without being inflated.
 */
class StoppableInflate implements UnzipDecoder {
  static readonly compression = 8;
  ondata: UnzipDecoder['ondata'] = () => undefined;
  private readonly inflate = new UnzipInflate();
  private stopped = false;

  constructor() {
    this.inflate.ondata = (error, data, final) => {
      if (!this.stopped) this.ondata(error, data, final);
    };
  }

  push(chunk: Uint8Array, final: boolean): void {
    if (!this.stopped) this.inflate.push(chunk, final);
  }

  terminate(): void {
    this.stopped = true;
  }
}

/** Streams one zip entry's bytes through saxes into a reader, and stops the entry once the reader is done. */
function readPart(entry: UnzipFile, reader: PartReader, fail: (error: unknown) => void): void {
  const parser = new SaxesParser<{ xmlns: false }>({ xmlns: false });
  parser.on('doctype', () => {
    // OOXML parts never carry a DTD; refusing one rules out entity tricks.
    throw new Error(`${entry.name} declares a DTD`);
  });
  parser.on('opentag', (tag) => reader.open({ name: localName(tag.name), attributes: tag.attributes }));
  parser.on('closetag', (tag) => reader.close(localName(tag.name)));
  parser.on('text', (text) => reader.text(text));
  parser.on('cdata', (text) => reader.text(text));
  const decoder = new TextDecoder();
  let stopped = false;
  entry.ondata = (error: FlateError | null, data: Uint8Array, final: boolean) => {
    if (stopped) return;
    try {
      if (error) throw error;
      parser.write(decoder.decode(data, { stream: !final }));
      if (final && !reader.done) parser.close();
    } catch (caught) {
      stopped = true;
      fail(caught);
      return;
    }
    if (reader.done) {
      stopped = true;
      entry.terminate();
    }
  };
  entry.start();
}

/** What the stream has given so far, and whether it is enough. */
class FirstSheet {
  error: unknown;
  private entries = 0;
  private workbookPart = DEFAULT_WORKBOOK;
  private rootRelationships: RelationshipsReader | undefined;
  private workbook: WorkbookReader | undefined;
  private workbookRelationships: RelationshipsReader | undefined;
  private shared: SharedStringsReader | undefined;
  /** Worksheets read before the workbook said which comes first. */
  private readonly sheets = new Map<string, SheetReader>();

  constructor(private readonly maxRows: number) {}

  /** Which part a zip entry is, and whether to read it. */
  entry(entry: UnzipFile): void {
    this.entries += 1;
    const key = partKey(entry.name);
    const reader = this.readerFor(key);
    if (!reader) {
      // Passed over: started so that fflate inflates nothing and keeps none of its bytes.
      entry.ondata = () => undefined;
      entry.start();
      entry.terminate();
      return;
    }
    readPart(entry, reader, (error) => {
      this.error ??= error;
    });
  }

  private readerFor(key: string): PartReader | undefined {
    this.noteRootRelationships();
    if (key === '_rels/.rels') {
      this.rootRelationships = new RelationshipsReader();
      return this.rootRelationships;
    }
    if (key === relationshipsPartOf(this.workbookPart)) {
      this.workbookRelationships = new RelationshipsReader();
      return this.workbookRelationships;
    }
    if (key === this.workbookPart) {
      this.workbook = new WorkbookReader();
      return this.workbook;
    }
    if (key === this.sharedStringsPart()) {
      this.shared = new SharedStringsReader();
      this.shared.needed = this.neededShared();
      return this.shared;
    }
    const sheetPart = this.sheetPart();
    const candidate =
      sheetPart === undefined
        ? key.startsWith(directoryOf(this.workbookPart)) && key.endsWith('.xml') && !key.includes('/_rels/')
        : key === sheetPart;
    if (!candidate) return undefined;
    const sheet = new SheetReader(this.maxRows);
    this.sheets.set(key, sheet);
    return sheet;
  }

  private noteRootRelationships(): void {
    const office = this.rootRelationships?.relationships.find((r) => r.type.endsWith('/officeDocument'));
    if (office) this.workbookPart = resolvePart('', office.target);
  }

  private sharedStringsPart(): string {
    const relationship = this.workbookRelationships?.relationships.find((r) =>
      r.type.endsWith('/sharedStrings'),
    );
    return relationship
      ? resolvePart(this.workbookPart, relationship.target)
      : `${directoryOf(this.workbookPart)}sharedstrings.xml`;
  }

  /** The first worksheet in tab order (chart sheets can come first), once the workbook and its rels are read. */
  private sheetPart(): string | undefined {
    this.noteRootRelationships();
    if (!this.workbook?.done || !this.workbookRelationships) return undefined;
    const byId = new Map(this.workbookRelationships.relationships.map((r) => [r.id, r]));
    for (const id of this.workbook.sheets) {
      const relationship = byId.get(id);
      if (relationship?.type.endsWith('/worksheet'))
        return resolvePart(this.workbookPart, relationship.target);
    }
    throw new Error('no worksheet');
  }

  private neededShared(): number | undefined {
    const part = this.sheetPart();
    const sheet = part === undefined ? undefined : this.sheets.get(part);
    return sheet?.done ? sheet.lastShared : undefined;
  }

  /** Whether all that the rows need is in hand. */
  get complete(): boolean {
    const part = this.sheetPart();
    const sheet = part === undefined ? undefined : this.sheets.get(part);
    if (!sheet?.done) return false;
    if (sheet.lastShared < 0) return true;
    if (!this.shared) return false;
    this.shared.needed = sheet.lastShared;
    return this.shared.has(sheet.lastShared);
  }

  rows(): string[][] {
    if (this.entries === 0) throw new Error('not a zip file');
    const part = this.sheetPart();
    if (part === undefined) throw new Error('no workbook');
    const sheet = this.sheets.get(part);
    if (!sheet?.done || !sheet.isSheet) throw new Error(`no worksheet ${part}`);
    const shared = this.shared?.strings ?? [];
    if (sheet.lastShared >= shared.length && this.shared?.truncated)
      throw new Error('shared strings too large');
    return sheet.rows.map((row) => Array.from(row, (cell) => cellText(cell, shared)));
  }
}

/** The first `maxRows` non-blank rows of the first worksheet of an XLSX file. */
export async function readXlsxFirstRows(file: Blob, maxRows: number): Promise<string[][]> {
  const book = new FirstSheet(maxRows);
  const unzip = new Unzip((entry) => book.entry(entry));
  unzip.register(StoppableInflate);
  const reader = file.stream().getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      unzip.push(value ?? new Uint8Array(0), done);
      if (book.error !== undefined) throw book.error;
      if (done || book.complete) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return book.rows();
}
