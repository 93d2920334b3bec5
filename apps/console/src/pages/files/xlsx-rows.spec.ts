import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readXlsxFirstRows, sharedStrings, sheetRows } from './xlsx-rows';

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function workbook(sheetXml: string, shared?: string[], level: 0 | 6 = 6): Blob {
  const files: Record<string, Uint8Array> = {
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
  if (shared) {
    files['xl/sharedStrings.xml'] = strToU8(
      `<sst xmlns="${NS}">${shared.map((s) => `<si><t xml:space="preserve">${s}</t></si>`).join('')}</sst>`,
    );
  }
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

describe('XLSX parts', () => {
  it('reads prefixed tags, rich text runs without phonetic hints, and entities', () => {
    expect(
      sharedStrings(
        '<x:sst><x:si><x:r><x:t>Jo</x:t></x:r><x:r><x:t>hn</x:t></x:r><x:rPh><x:t>ジョン</x:t></x:rPh></x:si><x:si><x:t>&lt;a&#64;b.c&gt;</x:t></x:si><x:si/></x:sst>',
      ),
    ).toEqual(['John', '<a@b.c>', '']);
    expect(sheetRows('<x:row><x:c r="B1" t="s"><x:v>1</x:v></x:c></x:row><x:row/>', ['a', 'b'], 10)).toEqual([
      ['', 'b'],
      [],
    ]);
  });
});
