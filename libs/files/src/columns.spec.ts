import { describe, expect, it } from 'vitest';
import { chooseEmailColumn } from './columns';
import { FileRejected } from './errors';

describe('chooseEmailColumn', () => {
  it('takes a header named like an address column', () => {
    const choice = chooseEmailColumn([
      ['Name', 'E-mail', 'Company'],
      ['Ann', 'ann@example.com', 'Acme'],
    ]);
    expect(choice).toEqual({
      hasHeader: true,
      index: 1,
      name: 'E-mail',
      headers: ['Name', 'E-mail', 'Company'],
    });
  });

  it.each([
    'email',
    'EMAIL',
    'Email Address',
    'email_address',
    'e-mail',
    'mail',
    'Courriel',
    'Correo electrónico',
    'Work Email',
  ])('recognises the label %j', (label) => {
    const choice = chooseEmailColumn([
      ['id', label, 'backup'],
      ['1', 'a@example.com', 'b@example.com'],
      ['2', 'c@example.com', 'd@example.com'],
    ]);
    expect(choice.index).toBe(1);
    expect(choice.hasHeader).toBe(true);
  });

  it('prefers the named column even when another holds more addresses', () => {
    const choice = chooseEmailColumn([
      ['manager', 'email'],
      ['boss@example.com', 'a@example.com'],
      ['boss@example.com', ''],
    ]);
    expect(choice.index).toBe(1);
  });

  it('passes over a named column with no address when another column has them', () => {
    const choice = chooseEmailColumn([
      ['email', 'contact'],
      ['', 'a@example.com'],
      ['n/a', 'b@example.com'],
    ]);
    expect(choice).toMatchObject({ index: 1, hasHeader: true, name: 'contact' });
  });

  it('falls back to the column with the most valid addresses', () => {
    const choice = chooseEmailColumn([
      ['who', 'where', 'reach'],
      ['a@example.com', 'x', 'b@example.com'],
      ['junk', 'y', 'c@example.com'],
      ['', 'z', 'd@example.com'],
    ]);
    expect(choice).toMatchObject({ index: 2, hasHeader: true, name: 'reach' });
  });

  it('matches email_column trimmed and case-insensitively', () => {
    const choice = chooseEmailColumn(
      [
        ['Primary Address', 'Other'],
        ['a@example.com', 'b@example.com'],
      ],
      '  primary address ',
    );
    expect(choice).toMatchObject({ index: 0, name: 'Primary Address', hasHeader: true });
  });

  it('refuses an absent email_column, naming it and the columns found', () => {
    const rows = [
      ['name', 'email'],
      ['Ann', 'a@example.com'],
    ];
    let error: unknown;
    try {
      chooseEmailColumn(rows, 'mail_address');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FileRejected);
    expect(error).toMatchObject({
      code: 'INVALID_REQUEST',
      reason: 'email_column_missing',
      message: 'The file has no column named "mail_address"; its columns are: "name", "email"',
    });
  });

  it('reads header-less files: the first row is data when it holds an address', () => {
    const choice = chooseEmailColumn([
      ['Ann', 'a@example.com'],
      ['Bob', 'b@example.com'],
    ]);
    expect(choice).toEqual({
      hasHeader: false,
      index: 1,
      name: 'column_2',
      headers: ['column_1', 'column_2'],
    });
  });

  it('keeps a first row whose address is merely invalid as data', () => {
    const choice = chooseEmailColumn([['broken@@example.com'], ['b@example.com']]);
    expect(choice.hasHeader).toBe(false);
  });

  it('accepts column_N for header-less files, and any name for a header-less one-column list', () => {
    const rows = [
      ['Ann', 'a@example.com'],
      ['Bob', 'b@example.com'],
    ];
    expect(chooseEmailColumn(rows, 'column_2')).toMatchObject({ index: 1, hasHeader: false });
    expect(chooseEmailColumn([['a@example.com'], ['b@example.com']], 'email')).toMatchObject({
      index: 0,
      hasHeader: false,
    });
    expect(() => chooseEmailColumn(rows, 'email')).toThrow(
      'The file has no column named "email"; it has no header row; its columns are: "column_1", "column_2"',
    );
  });

  it('pads headers to the widest row', () => {
    const choice = chooseEmailColumn([['email'], ['a@example.com', 'extra']]);
    expect(choice.headers).toEqual(['email', 'column_2']);
  });

  it('looks at the first 100 data rows only', () => {
    const rows = [
      ['a', 'b'],
      ...Array.from({ length: 100 }, () => ['x', 'y']),
      ['z@example.com', 'w@example.com'],
    ];
    expect(() => chooseEmailColumn(rows)).toThrow('The file holds no e-mail address');
  });

  it('refuses a file with no address at all, and an empty one', () => {
    expect(() => chooseEmailColumn([['name'], ['Ann'], ['Bob']])).toThrow('The file holds no e-mail address');
    expect(() => chooseEmailColumn([])).toThrow('The file holds no e-mail address');
    expect(() => chooseEmailColumn([['email'], ['not an address']])).toThrow(FileRejected);
  });
});
