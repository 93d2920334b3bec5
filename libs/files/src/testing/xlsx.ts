// Test support: builds real .xlsx files (zip + OOXML parts) with fflate, a dev dependency. Tests only.
import { Zip, ZipDeflate, strToU8, zipSync } from 'fflate';

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
 * Streams a workbook whose first sheet is produced piece by piece by `sheetPieces`, deflated on the fly, so a
 * sheet of hundreds of MiB (a zip bomb) is never held in memory by the test either.
 */
export async function* streamedXlsx(
  sheetPieces: () => Iterable<string>,
  level: 1 | 6 | 9 = 6,
): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else out.push(data);
  });
  const drain = function* (): Generator<Uint8Array> {
    if (failure) throw failure;
    yield* out.splice(0, out.length);
  };
  for (const [name, content] of workbookParts([{ name: 'Sheet1', path: 'worksheets/sheet1.xml' }], false)) {
    const file = new ZipDeflate(name, { level });
    zip.add(file);
    file.push(typeof content === 'string' ? strToU8(content) : content, true);
  }
  const sheet = new ZipDeflate('xl/worksheets/sheet1.xml', { level });
  zip.add(sheet);
  for (const piece of sheetPieces()) {
    sheet.push(strToU8(piece));
    yield* drain();
  }
  sheet.push(new Uint8Array(0), true);
  zip.end();
  yield* drain();
}
