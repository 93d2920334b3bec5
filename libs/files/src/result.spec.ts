import { describe, expect, it } from 'vitest';
import { formatCsvRow } from './csv/writer';
import {
  ENRICHMENT_COLUMNS,
  type ResultCells,
  VERIFICATION_COLUMNS,
  resultFields,
  resultHeader,
  resultLine,
  resultRow,
} from './result';

const result: ResultCells = {
  email: 'ann@example.com',
  status: 'valid',
  reason: 'accepted_email',
  score: 95,
  isDeliverable: true,
  isDisposable: false,
  isCatchall: false,
  isRole: false,
  isFree: true,
  domain: 'example.com',
  mxRecords: ['mx1.example.com', 'mx2.example.com'],
  domainSuggestion: '',
  smtpCheck: true,
};

describe('resultHeader', () => {
  it('is the verification columns alone without preserveOriginal', () => {
    expect(resultHeader(['Name', 'Email'], false)).toEqual([...VERIFICATION_COLUMNS]);
  });

  it('puts the original headers first and prefixes clashing verification columns with verify_', () => {
    const header = resultHeader(['Name', ' Email ', 'STATUS', 'verify_status'], true);
    expect(header.slice(0, 4)).toEqual(['Name', ' Email ', 'STATUS', 'verify_status']);
    expect(header.slice(4)).toEqual([
      'verify_email',
      'verify_verify_status',
      'reason',
      'score',
      'is_deliverable',
      'is_disposable',
      'is_catchall',
      'is_role',
      'is_free',
      'domain',
      'mx_records',
      'domain_suggestion',
      'smtp_check',
    ]);
  });

  it('adds has_gravatar and domain_age last for an enriched job, prefixed like the others when taken', () => {
    expect(resultHeader(['Email'], false, true)).toEqual([...VERIFICATION_COLUMNS, ...ENRICHMENT_COLUMNS]);
    expect(resultHeader(['Email', 'Domain_Age'], true, true).slice(-3)).toEqual([
      'smtp_check',
      'has_gravatar',
      'verify_domain_age',
    ]);
    expect(resultHeader(['Email'], true, false)).not.toContain('has_gravatar');
  });
});

describe('resultRow', () => {
  it('pads the original cells to the header width, then adds the verification cells', () => {
    expect(resultRow(['Ann'], 2, result, true)).toEqual([
      'Ann',
      '',
      'ann@example.com',
      'valid',
      'accepted_email',
      '95',
      'true',
      'false',
      'false',
      'false',
      'true',
      'example.com',
      'mx1.example.com;mx2.example.com',
      '',
      'true',
    ]);
  });

  it("ends an enriched job's row with has_gravatar and domain_age, false and 0 for a result without them", () => {
    const enriched = { ...result, hasGravatar: true, domainAge: 4017 };
    expect(resultRow([], 0, enriched, false, true).slice(-3)).toEqual(['true', 'true', '4017']);
    expect(resultRow([], 0, result, false, true).slice(-3)).toEqual(['true', 'false', '0']);
    expect(resultRow([], 0, enriched, false, false)).toHaveLength(VERIFICATION_COLUMNS.length);
    expect(resultFields(enriched, true)).toBe(`${resultFields(enriched)},true,4017`);
  });

  it('cuts rows wider than the header, and leaves originals out without preserveOriginal', () => {
    expect(resultRow(['a', 'b', 'c'], 2, result, true).slice(0, 3)).toEqual(['a', 'b', 'ann@example.com']);
    expect(resultRow(['a', 'b'], 2, result, false)).toHaveLength(VERIFICATION_COLUMNS.length);
  });
});

describe('resultLine', () => {
  const awkward: ResultCells = {
    ...result,
    email: '=cmd@example.com',
    reason: 'say "no", twice',
    score: -1,
    domain: '+example.com',
    mxRecords: ['mx1.example.com', 'mx;2'],
    domainSuggestion: '@x\ty',
  };
  const originals: string[][] = [
    ['Ann', 'ann@example.com'],
    ['=1+2', 'a,b', 'say "hi"', 'two\nlines', '\tx', '-3'],
    [],
    [''],
    ["'quoted", '|', ';'],
  ];

  it('is the text formatCsvRow makes of resultRow, with and without the original cells', () => {
    for (const r of [result, awkward, { ...awkward, hasGravatar: true, domainAge: 12 }]) {
      for (const original of originals) {
        for (const width of [0, 1, 2, 6]) {
          for (const preserve of [true, false]) {
            for (const enrich of [true, false]) {
              expect(resultLine(original, width, resultFields(r, enrich), preserve)).toBe(
                formatCsvRow(resultRow(original, width, r, preserve, enrich)),
              );
            }
          }
        }
      }
    }
  });

  it('escapes formula triggers and quotes what needs it in the verification cells', () => {
    expect(resultFields(awkward)).toBe(
      `'=cmd@example.com,valid,"say ""no"", twice",'-1,true,false,false,false,true,'+example.com,` +
        `"mx1.example.com;mx;2","'@x	y",true`,
    );
  });
});
