import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRows } from '../read-rows';
import { openTable } from '../table';
import { collect, peakRssGrowth, sourceOf } from '../testing/helpers';
import {
  type Part,
  sharedStringsXml,
  simpleXlsx,
  bombXlsx,
  workbookParts,
  worksheetXml,
  zipParts,
} from '@emailverify/testing';

const rowsOf = (bytes: Uint8Array, limits = {}): Promise<string[][]> =>
  collect(readRows(sourceOf(bytes), 'xlsx', limits));

// Each test gets its own temporary directory, so it can check that the spooled upload is gone afterwards.
let scratch: string;
let savedTmpdir: string | undefined;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'files-spec-'));
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
});
afterEach(async () => {
  expect(await readdir(scratch)).toEqual([]);
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(scratch, { recursive: true, force: true });
});

describe('readRows (XLSX)', () => {
  it('reads shared strings, numbers as text, booleans, and keeps column positions of empty cells', async () => {
    const rows = await rowsOf(
      simpleXlsx([
        ['Name', 'Email', 'Score', 'Active'],
        ['Ann & Co', 'ann@example.com', 42, true],
        ['Bob', null, 3.5, false],
        [null, null, 'c@example.com'],
      ]),
    );
    expect(rows).toEqual([
      ['Name', 'Email', 'Score', 'Active'],
      ['Ann & Co', 'ann@example.com', '42', 'TRUE'],
      ['Bob', '', '3.5', 'FALSE'],
      ['', '', 'c@example.com'],
    ]);
  });

  it('reads inline strings', async () => {
    expect(await rowsOf(simpleXlsx([['email'], ['<a@example.com>'], ['b@example.com']], 'inline'))).toEqual([
      ['email'],
      ['<a@example.com>'],
      ['b@example.com'],
    ]);
  });

  it('follows cell references, skips missing rows, and reads rich text without phonetic hints', async () => {
    const sheet = worksheetXml(
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="s"><v>1</v></c></row>' +
        '<row r="5"><c r="B5" t="str"><f>LOWER("X")</f><v>x_x000D_y</v></c><c t="inlineStr"><is><t>next</t></is></c></row>' +
        '<row r="6" customFormat="1"><c r="A6" s="3"/></row>' +
        '<row r="7"><c r="A7" t="e"><v>#N/A</v></c></row>',
    );
    const strings = sharedStringsXml([
      '<si><r><t>Ma</t></r><r><rPr><b/></rPr><t>il</t></r><rPh><t>めーる</t></rPh></si>',
      '<si><t xml:space="preserve"> spaced </t></si>',
    ]);
    const rows = await rowsOf(
      zipParts([
        ...workbookParts([{ name: 'Sheet1', path: 'worksheets/sheet1.xml' }], true),
        ['xl/worksheets/sheet1.xml', sheet],
        ['xl/sharedStrings.xml', strings],
      ]),
    );
    expect(rows).toEqual([['Mail', '', ' spaced '], ['', 'x\ry', 'next'], ['#N/A']]);
  });

  it('reads the first worksheet in tab order only, passing over a chart sheet', async () => {
    const parts: Part[] = [
      ...workbookParts(
        [
          { name: 'Chart', path: 'chartsheets/sheet1.xml', chart: true },
          { name: 'Leads', path: 'worksheets/sheet2.xml' },
          { name: 'Other', path: 'worksheets/sheet1.xml' },
        ],
        false,
      ),
      [
        'xl/worksheets/sheet1.xml',
        worksheetXml('<row><c t="inlineStr"><is><t>other@example.com</t></is></c></row>'),
      ],
      [
        'xl/worksheets/sheet2.xml',
        worksheetXml('<row><c t="inlineStr"><is><t>lead@example.com</t></is></c></row>'),
      ],
    ];
    expect(await rowsOf(zipParts(parts))).toEqual([['lead@example.com']]);
  });

  it('accepts prefixed element names, as the .NET SDK writes them', async () => {
    const sheet =
      '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>' +
      '<x:row r="1"><x:c r="B1" t="inlineStr"><x:is><x:t>a@example.com</x:t></x:is></x:c></x:row></x:sheetData></x:worksheet>';
    const parts: Part[] = [
      ...workbookParts([{ name: 'S', path: 'worksheets/sheet1.xml' }], false),
      ['xl/worksheets/sheet1.xml', sheet],
    ];
    expect(await rowsOf(zipParts(parts))).toEqual([['', 'a@example.com']]);
  });

  it('works through openTable', async () => {
    const table = await openTable(
      sourceOf(simpleXlsx([['Contact'], ['a@example.com'], ['b@example.com']])),
      'xlsx',
      {},
    );
    expect(table.column).toMatchObject({ hasHeader: true, name: 'Contact' });
    expect((await collect(table.rows)).map((row) => row.email)).toEqual(['a@example.com', 'b@example.com']);
  });

  it('streams a 50,000-row workbook through openTable', async () => {
    const total = 50_000;
    const bytes = simpleXlsx([
      ['id', 'Email', 'name'],
      ...Array.from({ length: total }, (_, i) => [i + 1, `user${i + 1}@example.com`, `Name ${i % 100}`]),
    ]);
    let count = 0;
    let last = { rowNumber: 0, email: '' };
    const growth = await peakRssGrowth(async () => {
      const table = await openTable(sourceOf(bytes), 'xlsx', {});
      for await (const row of table.rows) {
        count += 1;
        last = row;
      }
    });
    expect(count).toBe(total);
    expect(last).toEqual({
      rowNumber: total,
      cells: [String(total), `user${total}@example.com`, 'Name 99'],
      email: `user${total}@example.com`,
    });
    expect(growth).toBeLessThan(200 * 1024 * 1024);
  });

  describe('refuses', () => {
    it('a zip bomb: a sheet inflating past maxUnzippedBytes, streamed in and never inflated', async () => {
      const row = '<row><c t="inlineStr"><is><t>bomb@example.com</t></is></c></row>';
      const piece = row.repeat(Math.floor((1024 * 1024) / row.length));
      const header = worksheetXml('').replace('</sheetData></worksheet>', '');
      let error: unknown;
      const growth = await peakRssGrowth(async () => {
        // 520 MiB of sheet, past the default 512 MiB; about 2 MiB once deflated.
        const bomb = bombXlsx(header, piece, 520, '</sheetData></worksheet>');
        error = await collect(readRows(bomb, 'xlsx')).catch((e: unknown) => e);
      });
      expect(error).toMatchObject({
        code: 'INVALID_REQUEST',
        reason: 'zip_bomb',
        message: expect.stringContaining('zip bomb'),
      });
      expect(growth).toBeLessThan(200 * 1024 * 1024);
    });

    it('the same bomb on its size alone when the ratio check is off, and reads a small one of its kind', async () => {
      const row = '<row><c t="inlineStr"><is><t>bomb@example.com</t></is></c></row>';
      const piece = row.repeat(Math.floor((1024 * 1024) / row.length));
      const header = worksheetXml('').replace('</sheetData></worksheet>', '');
      const footer = '</sheetData></worksheet>';
      await expect(
        collect(readRows(bombXlsx(header, piece, 520, footer), 'xlsx', { maxCompressionRatio: Infinity })),
      ).rejects.toMatchObject({ reason: 'zip_bomb', message: expect.stringContaining('more than 512 MiB') });
      const small = await collect(
        readRows(bombXlsx(header, piece, 2, footer), 'xlsx', { maxCompressionRatio: Infinity }),
      );
      expect(small).toHaveLength(2 * Math.floor((1024 * 1024) / row.length));
      expect(small[0]).toEqual(['bomb@example.com']);
    });

    it('a workbook that inflates past maxUnzippedBytes even at a plausible ratio', async () => {
      let seed = 1;
      const noise = (): string => {
        let text = '';
        for (let i = 0; i < 4096; i++) {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          text += String.fromCharCode(97 + (seed % 26));
        }
        return text;
      };
      const rows = Array.from(
        { length: 600 },
        () => `<row><c t="inlineStr"><is><t>${noise()}</t></is></c></row>`,
      ).join('');
      const bytes = zipParts([
        ...workbookParts([{ name: 'S', path: 'worksheets/sheet1.xml' }], false),
        ['xl/worksheets/sheet1.xml', worksheetXml(rows)],
      ]);
      await expect(rowsOf(bytes, { maxUnzippedBytes: 1024 * 1024 })).rejects.toMatchObject({
        reason: 'zip_bomb',
        message: 'The XLSX file unpacks to more than 1 MiB; split it into smaller files or upload it as CSV',
      });
      expect(await rowsOf(bytes, { maxUnzippedBytes: 4 * 1024 * 1024 })).toHaveLength(600);
    });

    it('a part whose real size is larger than the zip declares', async () => {
      const bytes = Buffer.from(
        simpleXlsx([['email'], ...Array.from({ length: 500 }, (_, i) => [`u${i}@example.com`])], 'inline'),
      );
      const name = Buffer.from('xl/worksheets/sheet1.xml');
      // Central directory record: signature PK\1\2, uncompressed size at +24, name length at +28, name at +46.
      for (let at = bytes.indexOf('PK\u0001\u0002'); at >= 0; at = bytes.indexOf('PK\u0001\u0002', at + 4)) {
        const length = bytes.readUInt16LE(at + 28);
        if (bytes.subarray(at + 46, at + 46 + length).equals(name)) bytes.writeUInt32LE(100, at + 24);
      }
      await expect(rowsOf(bytes)).rejects.toMatchObject({
        reason: 'not_xlsx',
        message: 'The file is not a valid XLSX file',
      });
    });

    it('a zip that is not a workbook', async () => {
      await expect(rowsOf(zipParts([['emails.txt', 'a@example.com\n']]))).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        reason: 'not_xlsx',
        message: expect.stringContaining('not a valid XLSX file'),
      });
    });

    it('a file that is not a zip at all, and an old .xls', async () => {
      await expect(rowsOf(Buffer.from('email\na@example.com\n'))).rejects.toMatchObject({
        reason: 'not_xlsx',
        message: 'The file is not a valid XLSX file',
      });
      await expect(
        rowsOf(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0])),
      ).rejects.toMatchObject({
        message: expect.stringContaining('.xls'),
      });
      await expect(rowsOf(new Uint8Array(0))).rejects.toMatchObject({ reason: 'not_xlsx' });
    });

    it('a truncated zip', async () => {
      const bytes = simpleXlsx([['email'], ['a@example.com']]);
      await expect(rowsOf(bytes.subarray(0, bytes.length - 30))).rejects.toMatchObject({
        reason: 'not_xlsx',
      });
    });

    it('damaged sheet XML and DTDs', async () => {
      const damaged = zipParts([
        ...workbookParts([{ name: 'S', path: 'worksheets/sheet1.xml' }], false),
        ['xl/worksheets/sheet1.xml', '<worksheet><sheetData><row><c></row></sheetData></worksheet>'],
      ]);
      await expect(rowsOf(damaged)).rejects.toMatchObject({
        reason: 'not_xlsx',
        message: expect.stringContaining('damaged'),
      });
      const dtd = zipParts([
        ...workbookParts([{ name: 'S', path: 'worksheets/sheet1.xml' }], false),
        ['xl/worksheets/sheet1.xml', '<!DOCTYPE x [<!ENTITY a "aaaa">]><worksheet><sheetData/></worksheet>'],
      ]);
      await expect(rowsOf(dtd)).rejects.toMatchObject({
        reason: 'not_xlsx',
        message: expect.stringContaining('DTD'),
      });
    });

    it('a shared-strings table larger than allowed', async () => {
      const bytes = simpleXlsx([
        ['email'],
        ...Array.from({ length: 100 }, (_, i) => [`user${i}@example.com`]),
      ]);
      await expect(rowsOf(bytes, { maxSharedStringChars: 1000 })).rejects.toMatchObject({
        reason: 'zip_bomb',
      });
    });
  });
});
