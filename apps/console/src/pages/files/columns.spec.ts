import { describe, expect, it } from 'vitest';
import { fileKind, guessEmailColumn, looksLikeAddress } from './columns';

// Which column is chosen is the service's rule, specified in libs/contracts email-column.spec.ts and libs/files
// columns.spec.ts; these cases cover what the console makes of it: the options it shows and the names it sends.
describe('guessEmailColumn', () => {
  it('takes the column labelled like an address column and names it by its label', () => {
    const guess = guessEmailColumn([
      ['Name', 'E-mail', 'Company'],
      ['Ann', 'ann@example.com', 'Acme'],
      ['Bob', 'bob@example.org', 'Initech'],
    ]);
    expect(guess?.hasHeader).toBe(true);
    expect(guess?.chosen).toBe(1);
    expect(guess?.columns.map((c) => c.label)).toEqual(['Name', 'E-mail', 'Company']);
    expect(guess?.columns[1]).toMatchObject({
      field: 'E-mail',
      addresses: 2,
      sample: ['ann@example.com', 'bob@example.org'],
    });
  });

  it('takes the column with the most addresses when no label says which', () => {
    const guess = guessEmailColumn([
      ['id', 'contact', 'backup'],
      ['1', 'ann@example.com', ''],
      ['2', 'bob@example.com', 'bob@home.example'],
      ['3', 'cy@example.com', ''],
    ]);
    expect(guess?.chosen).toBe(1);
    expect(guess?.columns.map((c) => c.addresses)).toEqual([0, 3, 1]);
  });

  it('reads a file without a header as data and names its columns column_N', () => {
    const guess = guessEmailColumn([
      ['Ann', 'ann@example.com'],
      ['Bob', 'bob@example.com'],
    ]);
    expect(guess?.hasHeader).toBe(false);
    expect(guess?.chosen).toBe(1);
    expect(guess?.columns[1]).toMatchObject({ label: 'Column 2', field: 'column_2', addresses: 2 });
  });

  it('reads a one-column TXT list, header or not', () => {
    expect(guessEmailColumn([['ann@example.com'], ['bob@example.com']])).toMatchObject({
      hasHeader: false,
      chosen: 0,
      columns: [{ field: 'column_1', addresses: 2 }],
    });
    expect(guessEmailColumn([['\uFEFFEmail'], ['ann@example.com']])).toMatchObject({
      hasHeader: true,
      columns: [{ label: 'Email', field: 'Email' }],
    });
  });

  it('names a column by column_N when its label is empty or repeats an earlier one', () => {
    const guess = guessEmailColumn([
      ['email', 'Email', ''],
      ['ann@example.com', 'a2@example.com', 'x@example.com'],
    ]);
    expect(guess?.columns.map((c) => c.field)).toEqual(['email', 'column_2', 'column_3']);
    expect(guess?.columns[2]?.label).toBe('Column 3');
  });

  it('pads short rows and ignores blank ones', () => {
    const guess = guessEmailColumn([['Name', 'Email'], [''], ['Ann'], ['Bob', 'bob@example.com']]);
    expect(guess?.columns).toHaveLength(2);
    expect(guess?.chosen).toBe(1);
  });

  it('finds nothing in a file without an address', () => {
    expect(guessEmailColumn([])).toBeUndefined();
    expect(guessEmailColumn([['name'], ['Ann'], ['Bob']])).toBeUndefined();
  });

  it('reads only the first 101 rows', () => {
    const rows = [['Name', 'Other']];
    for (let i = 0; i < 100; i++) rows.push([`n${i}`, '']);
    rows.push(['late', 'late@example.com']);
    expect(guessEmailColumn(rows)).toBeUndefined();
  });
});

describe('looksLikeAddress', () => {
  it.each(['ann@example.com', ' Ann.Lee+x@mail.example.co.uk '])('takes %s', (cell) => {
    expect(looksLikeAddress(cell)).toBe(true);
  });
  it.each(['', 'ann', '@example.com', 'ann@', 'ann@example', 'a b@example.com', 'a@b@example.com'])(
    'refuses %j',
    (cell) => {
      expect(looksLikeAddress(cell)).toBe(false);
    },
  );
});

describe('fileKind', () => {
  it('reads the extension as the service does', () => {
    expect(fileKind('leads.CSV')).toBe('csv');
    expect(fileKind('list.txt')).toBe('txt');
    expect(fileKind('Book1.xlsx')).toBe('xlsx');
    expect(fileKind('old.xls')).toBeUndefined();
    expect(fileKind('README')).toBeUndefined();
  });
});
