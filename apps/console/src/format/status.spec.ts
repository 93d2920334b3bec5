import { VERIFICATION_STATUSES } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import { STATUS_LOOK, STATUS_ORDER, countByStatus, reasonWords } from './status';

describe('verdicts in words', () => {
  it('gives every status a word, a glyph and a meaning, and lists each once', () => {
    expect([...STATUS_ORDER].sort()).toEqual([...VERIFICATION_STATUSES].sort());
    for (const status of VERIFICATION_STATUSES) {
      const look = STATUS_LOOK[status];
      expect(look.label.length).toBeGreaterThan(2);
      expect(look.glyph.length).toBeGreaterThan(0);
      expect(look.meaning.length).toBeGreaterThan(10);
    }
  });

  it('tells statuses of the same colour apart by glyph', () => {
    const glyphs = VERIFICATION_STATUSES.map((status) => STATUS_LOOK[status].glyph);
    expect(new Set(glyphs).size).toBe(glyphs.length);
  });

  it('words a reason as a sentence, and an unknown one as the service wrote it', () => {
    expect(reasonWords('mailbox_not_found')).toBe('The mail server says this mailbox does not exist.');
    expect(reasonWords('some_new_reason')).toBe('some new reason');
  });

  it('counts results by status, best first, leaving out the statuses none has', () => {
    const results = ['role', 'valid', 'invalid', 'valid', 'risky'].map((status) => ({ status }));
    expect(countByStatus(results)).toEqual([
      ['valid', 2],
      ['invalid', 1],
      ['role', 1],
      ['risky', 1],
    ]);
  });
});
