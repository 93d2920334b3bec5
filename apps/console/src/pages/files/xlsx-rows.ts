// The first rows of an XLSX file's first sheet, read in the browser without a library: the zip's central
// directory locates the parts, the browser's own DecompressionStream inflates them, and a few regular
// expressions read the cells (the sheet is read only as far as the rows needed, however large it is). For the
// column picker only: anything unexpected (ZIP64, encryption, an odd layout) is an error, and the console then
// leaves the choice to the service.

/** What the picker may need of the shared strings: a long table is not read beyond this many characters. */
const MAX_SHARED_STRINGS_CHARS = 8_000_000;

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

function u16(view: DataView, at: number): number {
  return view.getUint16(at, true);
}

function u32(view: DataView, at: number): number {
  return view.getUint32(at, true);
}

async function bytes(blob: Blob, start: number, end: number): Promise<DataView> {
  return new DataView(await blob.slice(start, end).arrayBuffer());
}

/** The zip's entries, from its central directory. */
async function entries(file: Blob): Promise<Map<string, Entry>> {
  const tailStart = Math.max(0, file.size - (22 + 65_535));
  const tail = await bytes(file, tailStart, file.size);
  let end = -1;
  for (let at = tail.byteLength - 22; at >= 0; at--) {
    if (u32(tail, at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip file');
  const count = u16(tail, end + 10);
  const size = u32(tail, end + 12);
  const offset = u32(tail, end + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new Error('ZIP64 is not read here');
  const directory = await bytes(file, offset, offset + size);
  const decoder = new TextDecoder();
  const found = new Map<string, Entry>();
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (u32(directory, at) !== 0x02014b50) throw new Error('broken central directory');
    const flags = u16(directory, at + 8);
    if (flags & 1) throw new Error('encrypted');
    const nameLength = u16(directory, at + 28);
    const name = decoder.decode(new Uint8Array(directory.buffer, directory.byteOffset + at + 46, nameLength));
    found.set(name.replace(/^\//, ''), {
      name,
      method: u16(directory, at + 10),
      compressedSize: u32(directory, at + 20),
      localOffset: u32(directory, at + 42),
    });
    at += 46 + nameLength + u16(directory, at + 30) + u16(directory, at + 32);
  }
  return found;
}

/** An entry's text, decompressed as a stream; `enough(text)` stops reading early. */
async function readText(file: Blob, entry: Entry, enough?: (text: string) => boolean): Promise<string> {
  const local = await bytes(file, entry.localOffset, entry.localOffset + 30);
  if (u32(local, 0) !== 0x04034b50) throw new Error('broken local header');
  const start = entry.localOffset + 30 + u16(local, 26) + u16(local, 28);
  const raw = file.slice(start, start + entry.compressedSize).stream();
  let stream: ReadableStream<Uint8Array>;
  if (entry.method === 0) stream = raw;
  else if (entry.method === 8) stream = raw.pipeThrough(new DecompressionStream('deflate-raw'));
  else throw new Error(`compression method ${entry.method}`);
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (enough?.(text)) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

/** Tags without their namespace prefix (`<x:row>` -> `<row>`), so one set of patterns reads every writer. */
function unprefixed(xml: string): string {
  return xml.replace(/<(\/?)[A-Za-z_][\w.-]*:/g, '<$1');
}

function decodeEntities(text: string): string {
  return text.replace(/&(?:#x([0-9a-f]+)|#(\d+)|(lt|gt|amp|quot|apos));/gi, (_, hex, dec, name) => {
    if (hex) return String.fromCodePoint(parseInt(hex as string, 16));
    if (dec) return String.fromCodePoint(Number(dec));
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[(name as string).toLowerCase()] ?? '';
  });
}

/** The text of a string item (<si> or <is>): its <t> runs, phonetic hints (<rPh>) left out. */
function itemText(xml: string): string {
  const withoutPhonetic = xml.replace(/<rPh\b[\s\S]*?<\/rPh>/g, '');
  let text = '';
  for (const match of withoutPhonetic.matchAll(/<t\b[^>]*>([^<]*)<\/t>/g)) text += decodeEntities(match[1]!);
  return text;
}

function attribute(attributes: string, name: string): string | undefined {
  return new RegExp(`(?:^|\\s)${name}\\s*=\\s*"([^"]*)"`).exec(attributes)?.[1];
}

/** "C7" -> 2. */
function columnIndex(reference: string | undefined): number | undefined {
  const letters = reference ? /^([A-Z]+)/i.exec(reference)?.[1] : undefined;
  if (!letters) return undefined;
  let index = 0;
  for (const letter of letters.toUpperCase()) index = index * 26 + (letter.charCodeAt(0) - 64);
  return index - 1;
}

/** The first sheet's part name, through the workbook and its relationships. */
function firstSheetPath(workbookXml: string, relsXml: string): string {
  const sheet = /<sheet\b([^>]*)\/?>/.exec(unprefixed(workbookXml));
  const id = sheet ? /\br:id\s*=\s*"([^"]*)"|\bid\s*=\s*"([^"]*)"/.exec(sheet[1]!) : null;
  const relId = id?.[1] ?? id?.[2];
  if (!relId) throw new Error('no sheet');
  for (const match of unprefixed(relsXml).matchAll(/<Relationship\b([^>]*)\/?>/g)) {
    if (attribute(match[1]!, 'Id') !== relId) continue;
    const target = attribute(match[1]!, 'Target') ?? '';
    return target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`;
  }
  throw new Error('no sheet relationship');
}

/** Rows of sheet XML (complete <row> elements) as cells of text, placed by their references. */
export function sheetRows(sheetXml: string, shared: readonly string[], maxRows: number): string[][] {
  const rows: string[][] = [];
  for (const row of unprefixed(sheetXml).matchAll(/<row\b[^>]*?(?:\/>|>([\s\S]*?)<\/row>)/g)) {
    const cells: string[] = [];
    let next = 0;
    for (const cell of (row[1] ?? '').matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const attributes = cell[1]!;
      const body = cell[2] ?? '';
      const index = columnIndex(attribute(attributes, 'r')) ?? next;
      next = index + 1;
      const type = attribute(attributes, 't');
      const value = /<v\b[^>]*>([^<]*)<\/v>/.exec(body)?.[1];
      let text = '';
      if (type === 's') text = shared[Number(value)] ?? '';
      else if (type === 'inlineStr') text = itemText(/<is\b[^>]*>([\s\S]*?)<\/is>/.exec(body)?.[1] ?? '');
      else if (type === 'b') text = value === '1' ? 'TRUE' : 'FALSE';
      else text = decodeEntities(value ?? '');
      while (cells.length < index) cells.push('');
      cells[index] = text;
    }
    rows.push(cells);
    if (rows.length >= maxRows) break;
  }
  return rows;
}

/** The shared strings table's items, in order. */
export function sharedStrings(xml: string): string[] {
  return [...unprefixed(xml).matchAll(/<si\b[^>]*?(?:\/>|>([\s\S]*?)<\/si>)/g)].map((m) =>
    itemText(m[1] ?? ''),
  );
}

/** The first `maxRows` rows of the first sheet of an XLSX file. */
export async function readXlsxFirstRows(file: Blob, maxRows: number): Promise<string[][]> {
  const parts = await entries(file);
  const part = (name: string) => {
    const entry = parts.get(name);
    if (!entry) throw new Error(`no ${name}`);
    return entry;
  };
  const sheetPath = firstSheetPath(
    await readText(file, part('xl/workbook.xml')),
    await readText(file, part('xl/_rels/workbook.xml.rels')),
  );
  const sharedEntry = parts.get('xl/sharedStrings.xml');
  const shared = sharedEntry
    ? sharedStrings(await readText(file, sharedEntry, (text) => text.length > MAX_SHARED_STRINGS_CHARS))
    : [];
  const rowEnds = /<\/(?:[\w.-]+:)?row>/g;
  const sheet = await readText(
    file,
    part(sheetPath),
    (text) => (text.match(rowEnds)?.length ?? 0) >= maxRows,
  );
  return sheetRows(sheet, shared, maxRows);
}
