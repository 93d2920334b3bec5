import { describe, expect, it } from 'vitest';
import { parseAddresses, withSuggestedDomain } from './addresses';

describe('pasted addresses', () => {
  it('reads one per line, or separated by commas, semicolons and spaces, dropping blanks', () => {
    expect(parseAddresses('a@x.com\n\n b@y.org ,c@z.net; d@w.io\r\n<e@v.com>\t')).toEqual([
      'a@x.com',
      'b@y.org',
      'c@z.net',
      'd@w.io',
      'e@v.com',
    ]);
    expect(parseAddresses('  \n ')).toEqual([]);
  });

  it('keeps a repeated address once, whatever its case, in the order first given', () => {
    expect(parseAddresses('B@y.org\na@x.com\nb@Y.org')).toEqual(['B@y.org', 'a@x.com']);
  });
});

describe('the "did you mean" suggestion', () => {
  it('puts the suggested domain in place of the address’s own', () => {
    expect(withSuggestedDomain('jane.doe@gmial.com', 'gmail.com')).toBe('jane.doe@gmail.com');
    expect(withSuggestedDomain('a@b@gmial.com', 'gmail.com')).toBe('a@b@gmail.com');
  });
});
