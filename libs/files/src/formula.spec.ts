import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFormula } from './formula';

const TRIGGERS = ['=', '+', '-', '@', '\t', '\r'];
/** Cells biased towards the interesting starts: triggers, quotes, and both together. */
const cell = fc.oneof(
  fc.string(),
  fc.tuple(fc.constantFrom(...TRIGGERS, "'", "''", "'="), fc.string()).map(([start, rest]) => start + rest),
);

describe('escapeFormula', () => {
  it('escapes each trigger character with a leading quote', () => {
    expect(escapeFormula('=HYPERLINK("http://x")')).toBe(`'=HYPERLINK("http://x")`);
    expect(escapeFormula('+1')).toBe("'+1");
    expect(escapeFormula('-2')).toBe("'-2");
    expect(escapeFormula('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(escapeFormula('\tx')).toBe("'\tx");
    expect(escapeFormula('\rx')).toBe("'\rx");
    expect(escapeFormula('a=b')).toBe('a=b');
    expect(escapeFormula('')).toBe('');
  });

  it('never leaves a trigger character first', () => {
    fc.assert(fc.property(cell, (value) => !TRIGGERS.includes(escapeFormula(value).charAt(0))));
  });

  it('leaves cells without a leading trigger unchanged, including ones starting with a quote', () => {
    fc.assert(
      fc.property(cell, (value) => {
        fc.pre(!TRIGGERS.includes(value.charAt(0)));
        expect(escapeFormula(value)).toBe(value);
      }),
    );
  });

  it('adds exactly one quote to cells with a leading trigger', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TRIGGERS), fc.string(), (trigger, rest) => {
        expect(escapeFormula(trigger + rest)).toBe(`'${trigger}${rest}`);
      }),
    );
  });

  it('is idempotent, so result files read back and written again do not pile up quotes', () => {
    fc.assert(fc.property(cell, (value) => escapeFormula(escapeFormula(value)) === escapeFormula(value)));
  });
});
