import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../api/problem';
import { copyOutcomeWords, copySecret } from './copy';
import { currentCursor, FIRST_PAGE, newerPage, olderPage, pageNumber } from './cursor-pages';
import { isScopeRefusal, loadingWords } from './scope';

describe('paging by cursor', () => {
  it('goes to older pages by the reply’s next_cursor and back through the ones seen', () => {
    const second = olderPage(FIRST_PAGE, 'c2');
    const third = olderPage(second, 'c3');
    expect([currentCursor(FIRST_PAGE), pageNumber(FIRST_PAGE)]).toEqual([undefined, 1]);
    expect([currentCursor(third), pageNumber(third)]).toEqual(['c3', 3]);
    expect(currentCursor(newerPage(third))).toBe('c2');
    expect(newerPage(newerPage(third))).toEqual(FIRST_PAGE);
  });

  it('stays put past either end', () => {
    expect(olderPage(FIRST_PAGE, null)).toBe(FIRST_PAGE);
    expect(newerPage(FIRST_PAGE)).toBe(FIRST_PAGE);
  });
});

describe('copying a secret shown once', () => {
  it('uses the clipboard when the browser allows it', async () => {
    const written: string[] = [];
    let selected = false;
    const outcome = await copySecret('whsec_abc', {
      writeText: async (text) => void written.push(text),
      select: () => (selected = true),
    });
    expect([outcome, written, selected]).toEqual(['copied', ['whsec_abc'], false]);
  });

  it('falls back to the selected field, copied by the older command when that works', async () => {
    let selected = false;
    const refused = { writeText: () => Promise.reject(new Error('denied')), select: () => (selected = true) };
    expect(await copySecret('s', { ...refused, copySelection: () => true })).toBe('copied');
    expect(selected).toBe(true);
    expect(await copySecret('s', { ...refused, copySelection: () => false })).toBe('selected');
    expect(await copySecret('s', { select: () => undefined })).toBe('selected');
  });

  it('says what happened, and how to copy by hand', () => {
    expect(copyOutcomeWords('copied')).toBe('Copied to the clipboard.');
    expect(copyOutcomeWords('selected')).toMatch(/selected in the field, press Ctrl\+C/);
  });
});

describe('a refusal for the key’s scope', () => {
  it('is told apart from other failures, which a retry may mend', () => {
    expect(isScopeRefusal(new ApiProblem(403, 'INSUFFICIENT_SCOPE', 'verify scope'))).toBe(true);
    expect(isScopeRefusal(new ApiProblem(0, 'NETWORK', 'offline'))).toBe(false);
    expect(isScopeRefusal(new Error('x'))).toBe(false);
  });
});

describe('loading words', () => {
  it('say what the page waits for while the browser is offline', () => {
    expect(loadingWords('fetching', 'Loading the ledger…')).toBe('Loading the ledger…');
    expect(loadingWords('paused', 'Loading the ledger…')).toMatch(/^Waiting for the network/);
  });
});
