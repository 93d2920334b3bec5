import { describe, expect, it } from 'vitest';
import { detectEmailColumn, emailColumnName, findEmailColumn } from './email-column';

/** A stand-in for the caller's address test: one "@" between text. */
const isAddress = (cell: string): boolean => /^[^@\s]+@[^@\s]+$/.test(cell.trim());

describe('detectEmailColumn', () => {
  it('takes a column labelled like an address column before one holding more addresses', () => {
    expect(
      detectEmailColumn(
        [
          ['manager', 'Adresse électronique'],
          ['boss@example.com', 'a@example.com'],
          ['boss@example.com', ''],
        ],
        isAddress,
      ),
    ).toEqual({ index: 1, hasHeader: true, width: 2 });
  });

  it('takes the column with the most addresses, and reads a first row holding one as data', () => {
    expect(
      detectEmailColumn(
        [
          ['Ann', 'a@example.com', 'x'],
          ['Bob', 'b@example.com'],
        ],
        isAddress,
      ),
    ).toEqual({ index: 1, hasHeader: false, width: 3 });
  });

  it('finds nothing without an address, by the caller’s test', () => {
    expect(detectEmailColumn([['email'], ['not one']], isAddress)).toBeUndefined();
    expect(detectEmailColumn([['email'], ['a@example.com']], () => false)).toBeUndefined();
    expect(detectEmailColumn([], isAddress)).toBeUndefined();
  });
});

describe('emailColumnName', () => {
  const rows = [
    ['email', ' Email ', '', 'Work'],
    ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'],
  ];

  it('names each column so that findEmailColumn finds it again', () => {
    const names = rows[0]!.map((_, index) => emailColumnName(rows[0]!, true, index));
    expect(names).toEqual(['email', 'column_2', 'column_3', 'Work']);
    names.forEach((name, index) => {
      expect(findEmailColumn(rows, name, isAddress)?.index).toBe(index);
    });
  });

  it('names the columns of a header-less file column_N', () => {
    const data = [['Ann', 'a@example.com']];
    expect(emailColumnName(data[0]!, false, 1)).toBe('column_2');
    expect(findEmailColumn(data, 'column_2', isAddress)).toEqual({ index: 1, hasHeader: false, width: 2 });
  });
});
