import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readXlsxFirstRows } from './xlsx-rows';

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function sharedStringsPart(shared: string[]): Uint8Array {
  return strToU8(
    `<sst xmlns="${NS}">${shared.map((s) => `<si><t xml:space="preserve">${s}</t></si>`).join('')}</sst>`,
  );
}

function workbook(sheetXml: string, shared?: string[], level: 0 | 6 = 6, sharedFirst = false): Blob {
  const files: Record<string, Uint8Array> = {
    ...(shared && sharedFirst ? { 'xl/sharedStrings.xml': sharedStringsPart(shared) } : {}),
    '[Content_Types].xml': strToU8('<Types/>'),
    'xl/workbook.xml': strToU8(
      `<workbook xmlns="${NS}" xmlns:r="${REL}"><sheets><sheet name="Leads" sheetId="1" r:id="rId7"/><sheet name="Other" sheetId="2" r:id="rId8"/></sheets></workbook>`,
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      `<Relationships><Relationship Id="rId8" Type="${REL}/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId7" Type="${REL}/worksheet" Target="worksheets/leads.xml"/></Relationships>`,
    ),
    'xl/worksheets/sheet2.xml': strToU8(`<worksheet xmlns="${NS}"><sheetData/></worksheet>`),
    'xl/worksheets/leads.xml': strToU8(
      `<worksheet xmlns="${NS}"><sheetData>${sheetXml}</sheetData></worksheet>`,
    ),
  };
  if (shared && !sharedFirst) files['xl/sharedStrings.xml'] = sharedStringsPart(shared);
  return new Blob([zipSync(files, { level })]);
}

describe('readXlsxFirstRows', () => {
  it('reads the first sheet of the workbook, shared and inline strings, placed by their references', async () => {
    const file = workbook(
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c></row>' +
        '<row r="2"><c r="A2" t="inlineStr"><is><t>Ann &amp; co</t></is></c><c r="C2" t="s"><v>2</v></c></row>' +
        '<row r="3"><c r="A3"><v>42</v></c><c r="B3" t="b"><v>1</v></c><c r="C3" t="str"><v>bob@example.com</v></c></row>',
      ['Name', 'E-mail', 'ann@example.com'],
    );
    expect(await readXlsxFirstRows(file, 101)).toEqual([
      ['Name', '', 'E-mail'],
      ['Ann & co', '', 'ann@example.com'],
      ['42', 'TRUE', 'bob@example.com'],
    ]);
  });

  it('reads stored (uncompressed) parts too', async () => {
    const file = workbook('<row><c t="inlineStr"><is><t>a@example.com</t></is></c></row>', undefined, 0);
    expect(await readXlsxFirstRows(file, 101)).toEqual([['a@example.com']]);
  });

  it('stops after the rows it needs', async () => {
    const rows = Array.from(
      { length: 5000 },
      (_, i) =>
        `<row r="${i + 1}"><c r="A${i + 1}" t="inlineStr"><is><t>u${i}@example.com</t></is></c></row>`,
    ).join('');
    const read = await readXlsxFirstRows(workbook(rows), 101);
    expect(read).toHaveLength(101);
    expect(read[100]).toEqual(['u100@example.com']);
  });

  it('refuses what is not a zip', async () => {
    await expect(readXlsxFirstRows(new Blob(['Name,Email\n']), 101)).rejects.toThrow('not a zip file');
  });
});

/** A file read in 64 KiB pieces, as browsers read one from disk, counting the bytes handed out. */
class CountingFile extends Blob {
  read = 0;
  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    let at = 0;
    return new ReadableStream({
      pull: async (controller) => {
        if (at >= this.size) return controller.close();
        const piece = new Uint8Array(await this.slice(at, at + 65_536).arrayBuffer());
        at += piece.byteLength;
        this.read += piece.byteLength;
        controller.enqueue(piece);
      },
    });
  }
}

describe('readXlsxFirstRows on what writers do', () => {
  it('reads prefixed tags, rich text runs without phonetic hints, entities and OOXML escapes', async () => {
    const file = new Blob([
      zipSync({
        '_rels/.rels': strToU8(
          `<Relationships><Relationship Id="r1" Type="${REL}/officeDocument" Target="/xl/book.xml"/></Relationships>`,
        ),
        'xl/book.xml': strToU8(
          `<x:workbook xmlns:x="${NS}" xmlns:r="${REL}"><x:sheets><x:sheet name="S" sheetId="1" r:id="a"/></x:sheets></x:workbook>`,
        ),
        'xl/_rels/book.xml.rels': strToU8(
          `<Relationships><Relationship Id="a" Type="${REL}/worksheet" Target="sheets/one.xml"/><Relationship Id="b" Type="${REL}/sharedStrings" Target="strings.xml"/></Relationships>`,
        ),
        'xl/strings.xml': strToU8(
          '<x:sst><x:si><x:r><x:t>Jo</x:t></x:r><x:r><x:t>hn</x:t></x:r><x:rPh><x:t>ジョン</x:t></x:rPh></x:si><x:si><x:t>&lt;a&#64;b.c&gt;</x:t></x:si></x:sst>',
        ),
        'xl/sheets/one.xml': strToU8(
          `<x:worksheet xmlns:x="${NS}"><x:sheetData><x:row><x:c r="B1" t="s"><x:v>0</x:v></x:c></x:row><x:row r="2"/>` +
            '<x:row><x:c t="s"><x:v>1</x:v></x:c><x:c t="str"><x:v>a_x000D_b</x:v></x:c></x:row></x:sheetData></x:worksheet>',
        ),
      }),
    ]);
    expect(await readXlsxFirstRows(file, 101)).toEqual([
      ['', 'John'],
      ['<a@b.c>', 'a\rb'],
    ]);
  });

  it('reads the first worksheet in tab order, passing over a chart sheet, and refuses a DTD', async () => {
    const parts = (sheet: string): Blob =>
      new Blob([
        zipSync({
          'xl/workbook.xml': strToU8(
            `<workbook xmlns="${NS}" xmlns:r="${REL}"><sheets><sheet name="C" sheetId="1" r:id="c"/><sheet name="L" sheetId="2" r:id="l"/></sheets></workbook>`,
          ),
          'xl/_rels/workbook.xml.rels': strToU8(
            `<Relationships><Relationship Id="c" Type="${REL}/chartsheet" Target="chartsheets/sheet1.xml"/><Relationship Id="l" Type="${REL}/worksheet" Target="worksheets/sheet9.xml"/></Relationships>`,
          ),
          'xl/chartsheets/sheet1.xml': strToU8(`<chartsheet xmlns="${NS}"/>`),
          'xl/worksheets/sheet9.xml': strToU8(sheet),
        }),
      ]);
    const sheet = `<worksheet xmlns="${NS}"><sheetData><row><c t="inlineStr"><is><t>a@example.com</t></is></c></row></sheetData></worksheet>`;
    expect(await readXlsxFirstRows(parts(sheet), 101)).toEqual([['a@example.com']]);
    await expect(readXlsxFirstRows(parts(`<!DOCTYPE x [<!ENTITY a "b">]>${sheet}`), 101)).rejects.toThrow(
      'declares a DTD',
    );
  });

  it('reads the shared strings whether they come before or after the sheet', async () => {
    const sheet = '<row><c t="s"><v>1</v></c></row>';
    const before = workbook(sheet, ['a', 'b@example.com'], 6, true);
    const after = workbook(sheet, ['a', 'b@example.com'], 6, false);
    expect(await readXlsxFirstRows(before, 101)).toEqual([['b@example.com']]);
    expect(await readXlsxFirstRows(after, 101)).toEqual([['b@example.com']]);
  });

  it('stops reading the file once it has the rows', async () => {
    const rows = Array.from(
      { length: 20_000 },
      (_, i) => `<row><c t="inlineStr"><is><t>u${i}@example.com</t></is></c></row>`,
    ).join('');
    const bytes = await workbook(rows, undefined, 0).arrayBuffer();
    const file = new CountingFile([bytes]);
    expect(await readXlsxFirstRows(file, 101)).toHaveLength(101);
    expect(file.read).toBeLessThan(bytes.byteLength / 2);
  });

  it('refuses damaged XML and a truncated zip', async () => {
    await expect(readXlsxFirstRows(workbook('<row><c></row>'), 101)).rejects.toThrow();
    const whole = new Uint8Array(await workbook('<row><c t="s"><v>0</v></c></row>', ['a']).arrayBuffer());
    await expect(readXlsxFirstRows(new Blob([whole.subarray(0, whole.length / 2)]), 101)).rejects.toThrow();
  });
});
