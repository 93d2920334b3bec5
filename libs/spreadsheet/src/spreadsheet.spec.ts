import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import {
  type RawCell,
  SharedStringsHandler,
  WorksheetHandler,
  type XmlHandler,
  attribute,
  cellText,
  columnIndex,
  decodeOoxmlEscapes,
  localName,
  relationshipOf,
} from './index';

/** Feeds a part's XML to a handler, names by local name, as both readers do. */
function feed(xml: string, handler: XmlHandler): void {
  const parser = new SaxesParser<{ xmlns: false }>({ xmlns: false });
  parser.on('opentag', (tag) => handler.open({ name: localName(tag.name), attributes: tag.attributes }));
  parser.on('closetag', (tag) => handler.close(localName(tag.name)));
  parser.on('text', (text) => handler.text(text));
  parser.on('cdata', (text) => handler.text(text));
  parser.write(xml).close();
}

/** Rows of raw cells, with what the handler was told in order. */
class Cells extends WorksheetHandler {
  readonly rows: (RawCell | undefined)[][] = [];
  readonly events: string[] = [];
  private row: RawCell[] = [];
  protected override startRow(): void {
    this.row = [];
    this.events.push('row');
  }
  protected override endCell(column: number, cell: RawCell): void {
    this.row[column] = cell;
    this.events.push(`cell ${column}`);
  }
  protected override endRow(): void {
    this.rows.push(Array.from(this.row));
    this.events.push('end');
  }
}

function worksheet(sheetData: string): string {
  return `<worksheet><sheetData>${sheetData}</sheetData></worksheet>`;
}

class Strings extends SharedStringsHandler {
  readonly strings: string[] = [];
  protected override addString(value: string): void {
    this.strings.push(value);
  }
}

describe('cell references', () => {
  it.each([
    ['A1', 0],
    ['C5', 2],
    ['c5', 2],
    ['Z9', 25],
    ['AA1', 26],
    ['AZ1', 51],
    ['XFD1048576', 16_383],
    ['B', 1],
  ])('%s is column %i', (reference, column) => {
    expect(columnIndex(reference)).toBe(column);
  });

  it.each(['XFE1', 'ZZZZ1', '5', '', '$A$1'])('%j names no column Excel has', (reference) => {
    expect(columnIndex(reference)).toBeUndefined();
  });
});

describe('OOXML escapes', () => {
  it('decodes _xHHHH_ to the character, in either case of hex digits', () => {
    expect(decodeOoxmlEscapes('a_x000D_b_x000d_c')).toBe('a\rb\rc');
  });

  it('reads an escaped underscore once, not as the start of a further escape', () => {
    expect(decodeOoxmlEscapes('_x005F_x000D_')).toBe('_x000D_');
  });

  it('leaves what is not an escape alone', () => {
    expect(decodeOoxmlEscapes('my_x_file_x12_')).toBe('my_x_file_x12_');
  });
});

describe('attributes and names', () => {
  it('finds an attribute by its local name, the unprefixed one first', () => {
    expect(attribute({ name: 'sheet', attributes: { 'r:id': 'rId7' } }, 'id')).toBe('rId7');
    expect(attribute({ name: 'sheet', attributes: { 'r:id': 'rId7', id: 'plain' } }, 'id')).toBe('plain');
    expect(attribute({ name: 'sheet', attributes: {} }, 'id')).toBeUndefined();
  });

  it('drops an element name’s prefix', () => {
    expect(localName('x:row')).toBe('row');
    expect(localName('row')).toBe('row');
  });
});

describe('cell text by type', () => {
  const shared = ['Name', 'E-mail'];
  const cell = (type: string, value: string, inline = ''): RawCell => ({ type, value, inline });

  it.each([
    ['a shared string', cell('s', '1'), 'E-mail'],
    ['a shared string past the table', cell('s', '7'), ''],
    ['an inline string, escapes decoded', cell('inlineStr', '', 'a_x000D_b'), 'a\rb'],
    ['a true boolean', cell('b', ' 1 '), 'TRUE'],
    ['a false boolean', cell('b', '0'), 'FALSE'],
    ['a formula’s string, escapes decoded', cell('str', 'x_x000A_y'), 'x\ny'],
    ['a number, as stored', cell('n', '1.50'), '1.50'],
    ['an error value, as stored', cell('e', '#N/A'), '#N/A'],
    ['no cell', undefined, ''],
  ])('%s', (_what, raw, text) => {
    expect(cellText(raw, shared)).toBe(text);
  });
});

describe('WorksheetHandler', () => {
  it('places cells by their references, or after the previous cell without one', () => {
    const cells = new Cells();
    feed(
      worksheet(
        '<row r="1"><c r="B1"><v>1</v></c><c><v>2</v></c><c r="E1" t="s"><v>0</v></c></row>' +
          '<row r="3"><c t="b"><v>1</v></c></row>',
      ),
      cells,
    );
    expect(cells.rows).toEqual([
      [
        undefined,
        { type: 'n', value: '1', inline: '' },
        { type: 'n', value: '2', inline: '' },
        undefined,
        { type: 's', value: '0', inline: '' },
      ],
      [{ type: 'b', value: '1', inline: '' }],
    ]);
    expect(cells.events).toEqual(['row', 'cell 1', 'cell 2', 'cell 4', 'end', 'row', 'cell 0', 'end']);
    expect(cells.finished).toBe(true);
  });

  it('reads inline strings from their runs without phonetic hints, and values without formulas', () => {
    const cells = new Cells();
    feed(
      worksheet(
        '<x:row><x:c t="inlineStr"><x:is><x:r><x:t>Ma</x:t></x:r><x:r><x:t>il</x:t></x:r>' +
          '<x:rPh><x:t>めーる</x:t></x:rPh></x:is></x:c><x:c t="str"><x:f>LOWER("A")</x:f><x:v>a</x:v></x:c></x:row>',
      ),
      cells,
    );
    expect(cells.rows).toEqual([
      [
        { type: 'inlineStr', value: '', inline: 'Mail' },
        { type: 'str', value: 'a', inline: '' },
      ],
    ]);
  });

  it('keeps the text as stored: escapes are decoded by cellText, by type', () => {
    const cells = new Cells();
    feed(worksheet('<row><c t="str"><v>a_x000D_b</v></c><c><v><![CDATA[42]]></v></c></row>'), cells);
    expect(cells.rows[0]?.map((cell) => cellText(cell, []))).toEqual(['a\rb', '42']);
    expect(cells.rows[0]?.[0]?.value).toBe('a_x000D_b');
  });

  it('is finished at the end of sheetData, and reads no rows outside it', () => {
    const cells = new Cells();
    cells.open({ name: 'worksheet', attributes: {} });
    expect(cells.finished).toBe(false);
    feed('<worksheet><row><c><v>1</v></c></row><sheetData/></worksheet>', cells);
    expect(cells.rows).toEqual([]);
    expect(cells.finished).toBe(true);
  });

  it('refuses a reference past Excel’s last column, in the way a subclass chooses', () => {
    expect(() => feed(worksheet('<row><c r="XFE1"><v>1</v></c></row>'), new Cells())).toThrow(
      'cell reference XFE1',
    );
    class Strict extends Cells {
      protected override refuseReference(reference: string): never {
        throw new RangeError(`refused ${reference}`);
      }
    }
    expect(() => feed(worksheet('<row><c r="1"><v>1</v></c></row>'), new Strict())).toThrow(
      new RangeError('refused 1'),
    );
  });
});

describe('SharedStringsHandler', () => {
  it('reads plain and rich-text items in order, without phonetic hints, escapes decoded', () => {
    const strings = new Strings();
    feed(
      '<sst><si><t xml:space="preserve"> Name </t></si>' +
        '<si><r><t>Jo</t></r><r><rPr><b/></rPr><t>hn</t></r><rPh sb="0" eb="2"><t>ジョン</t></rPh></si>' +
        '<si><t>a_x000D_b</t></si><si/></sst>',
      strings,
    );
    expect(strings.strings).toEqual([' Name ', 'John', 'a\rb', '']);
  });
});

describe('relationships', () => {
  it('reads a relationship, whatever the prefix of its attributes', () => {
    expect(
      relationshipOf({
        name: 'Relationship',
        attributes: { Id: 'rId1', Type: 'http://x/worksheet', Target: 'worksheets/sheet1.xml' },
      }),
    ).toEqual({ id: 'rId1', type: 'http://x/worksheet', target: 'worksheets/sheet1.xml' });
  });

  it('passes over external targets and other elements', () => {
    expect(
      relationshipOf({
        name: 'Relationship',
        attributes: {
          Id: 'rId2',
          Type: 'http://x/hyperlink',
          Target: 'https://example.com',
          TargetMode: 'External',
        },
      }),
    ).toBeUndefined();
    expect(relationshipOf({ name: 'Relationships', attributes: {} })).toBeUndefined();
  });
});
