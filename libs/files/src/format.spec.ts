import { describe, expect, it } from 'vitest';
import { formatFromName } from './format';

describe('formatFromName', () => {
  it('knows the three upload formats by extension, case-insensitively', () => {
    expect(formatFromName('list.csv')).toBe('csv');
    expect(formatFromName('LIST.CSV')).toBe('csv');
    expect(formatFromName('emails.TxT')).toBe('txt');
    expect(formatFromName('Q3 leads.final.xlsx')).toBe('xlsx');
  });

  it('refuses anything else, including no extension and old .xls', () => {
    expect(formatFromName('list')).toBeUndefined();
    expect(formatFromName('list.xls')).toBeUndefined();
    expect(formatFromName('list.csv.exe')).toBeUndefined();
    expect(formatFromName('.csv')).toBe('csv');
  });
});
