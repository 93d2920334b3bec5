import { describe, expect, it } from 'vitest';
import { fallbackName, fileNameOf, resultsQuery } from './results';

describe('results downloads', () => {
  it('names the file as the reply does, the UTF-8 name first', () => {
    expect(
      fileNameOf(`attachment; filename="a_resultats.csv"; filename*=UTF-8''%D0%B0-r%C3%A9sultats.csv`),
    ).toBe('а-résultats.csv');
    expect(fileNameOf('attachment; filename="leads-results.csv"')).toBe('leads-results.csv');
    expect(fileNameOf('attachment; filename=plain.csv')).toBe('plain.csv');
    expect(fileNameOf(`attachment; filename*=UTF-8''%E0%A4%A; filename="kept.csv"`)).toBe('kept.csv');
    expect(fileNameOf(null)).toBeUndefined();
    expect(fileNameOf('attachment')).toBeUndefined();
  });

  it('asks for the ticked verdicts, and partial while the job runs', () => {
    expect(resultsQuery(['valid', 'role'], false)).toEqual({ valid: true, role: true });
    expect(resultsQuery([], true)).toEqual({ partial: true });
    expect(resultsQuery([], false)).toEqual({});
  });

  it('falls back on a name made from the upload', () => {
    expect(fallbackName('leads.csv', false)).toBe('leads-results.csv');
    expect(fallbackName('leads.csv', true)).toBe('leads-partial-results.csv');
    expect(fallbackName('.csv', false)).toBe('list-results.csv');
  });
});
