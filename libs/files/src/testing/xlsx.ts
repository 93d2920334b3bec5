// Test support: builds real .xlsx files (zip + OOXML parts) with fflate, a dev dependency. Tests only.
import { strToU8, zipSync } from 'fflate';
import { crc32, deflateRawSync, constants as zlibConstants } from 'node:zlib';

export type Part = [name: string, content: string | Uint8Array];

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Workbook parts around the given sheets (in tab order); sheet parts themselves are added by the caller. */
export function workbookParts(
  sheets: { name: string; path: string; chart?: boolean }[],
  sharedStrings: boolean,
): Part[] {
  const sheetElements = sheets
    .map((sheet, i) => `<sheet name="${escapeXml(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
    .join('');
  const workbook = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets>${sheetElements}</sheets></workbook>`;
  const relationships = sheets.map(
    (sheet, i) =>
      `<Relationship Id="rId${i + 1}" Type="${REL}/${sheet.chart ? 'chartsheet' : 'worksheet'}" Target="${sheet.path}"/>`,
  );
  if (sharedStrings) {
    relationships.push(`<Relationship Id="rIdS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`);
  }
  const rels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships.join('')}</Relationships>`;
  return [
    ['[Content_Types].xml', CONTENT_TYPES],
    ['_rels/.rels', ROOT_RELS],
    ['xl/workbook.xml', workbook],
    ['xl/_rels/workbook.xml.rels', rels],
  ];
}

export function worksheetXml(rowsXml: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rowsXml}</sheetData></worksheet>`;
}

export function sharedStringsXml(items: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${items.length}" uniqueCount="${items.length}">${items.join('')}</sst>`;
}

export type SimpleCell = string | number | boolean | null;

/**
 * A one-sheet workbook from plain values: strings shared (default) or inline, numbers and booleans typed,
 * null leaves the cell out. The shared-strings part comes after the sheet, as Excel writes it.
 */
export function simpleXlsx(rows: SimpleCell[][], strings: 'shared' | 'inline' = 'shared'): Uint8Array {
  const table: string[] = [];
  const rowsXml = rows
    .map((row, r) => {
      const cells = row
        .map((value, c) => {
          if (value === null) return '';
          const ref = `${columnName(c)}${r + 1}`;
          if (typeof value === 'number') return `<c r="${ref}"><v>${value}</v></c>`;
          if (typeof value === 'boolean') return `<c r="${ref}" t="b"><v>${value ? 1 : 0}</v></c>`;
          if (strings === 'inline')
            return `<c r="${ref}" t="inlineStr"><is><t>${escapeXml(value)}</t></is></c>`;
          table.push(`<si><t xml:space="preserve">${escapeXml(value)}</t></si>`);
          return `<c r="${ref}" t="s"><v>${table.length - 1}</v></c>`;
        })
        .join('');
      return `<row r="${r + 1}">${cells}</row>`;
    })
    .join('');
  const parts: Part[] = [
    ...workbookParts([{ name: 'Sheet1', path: 'worksheets/sheet1.xml' }], strings === 'shared'),
    ['xl/worksheets/sheet1.xml', worksheetXml(rowsXml)],
  ];
  if (strings === 'shared') parts.push(['xl/sharedStrings.xml', sharedStringsXml(table)]);
  return zipParts(parts);
}

export function zipParts(parts: Part[]): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const [name, content] of parts) files[name] = typeof content === 'string' ? strToU8(content) : content;
  return zipSync(files, { level: 6 });
}

export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/**
 * A zip bomb workbook: the first sheet is `header`, then `piece` repeated `times`, then `footer`, deflated
 * once per distinct piece (a full flush makes compressed pieces concatenable), so a 520 MiB sheet costs the
 * test well under a second and a few MiB. The zip records are written by hand, with true sizes and CRC.
 */
export async function* bombXlsx(
  header: string,
  piece: string,
  times: number,
  footer: string,
): AsyncGenerator<Uint8Array> {
  const entries: { name: string; crc: number; packed: number; size: number; offset: number }[] = [];
  let offset = 0;
  const emit = function* (
    name: string,
    chunks: () => Iterable<[raw: Buffer, packed: Buffer]>,
  ): Generator<Buffer> {
    let crc = 0;
    let size = 0;
    let packed = 0;
    const body: Buffer[] = [];
    for (const [raw, deflated] of chunks()) {
      crc = crc32(raw, crc);
      size += raw.length;
      packed += deflated.length;
      body.push(deflated);
    }
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(packed, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    entries.push({ name, crc, packed, size, offset });
    offset += local.length + nameBytes.length + packed;
    yield local;
    yield nameBytes;
    // The repeated piece is the same Buffer each time: yielding it again costs nothing.
    yield* body;
  };
  const once = (text: string): (() => Iterable<[Buffer, Buffer]>) =>
    function* () {
      const raw = Buffer.from(text);
      yield [raw, deflateRawSync(raw)];
    };
  for (const [name, content] of workbookParts([{ name: 'Sheet1', path: 'worksheets/sheet1.xml' }], false)) {
    yield* emit(name, once(typeof content === 'string' ? content : Buffer.from(content).toString()));
  }
  const flush = { finishFlush: zlibConstants.Z_FULL_FLUSH };
  yield* emit('xl/worksheets/sheet1.xml', function* () {
    const start = Buffer.from(header);
    yield [start, deflateRawSync(start, flush)];
    const raw = Buffer.from(piece);
    const packed = deflateRawSync(raw, flush);
    for (let i = 0; i < times; i++) yield [raw, packed];
    const end = Buffer.from(footer);
    yield [end, deflateRawSync(end)];
  });
  const central: Buffer[] = [];
  for (const entry of entries) {
    const nameBytes = Buffer.from(entry.name);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(8, 10);
    record.writeUInt32LE(entry.crc >>> 0, 16);
    record.writeUInt32LE(entry.packed, 20);
    record.writeUInt32LE(entry.size, 24);
    record.writeUInt16LE(nameBytes.length, 28);
    record.writeUInt32LE(entry.offset, 42);
    central.push(record, nameBytes);
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield directory;
  yield end;
}
