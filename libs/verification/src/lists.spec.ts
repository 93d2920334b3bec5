import { DomainError } from '@emailverify/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkDisposable,
  editDistance,
  isDisposableDomain,
  isFreeProvider,
  isRoleLocalPart,
  suggestDomain,
} from './lists';

describe('isDisposableDomain', () => {
  it('knows common disposable providers and their subdomains', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('MAILINATOR.com')).toBe(true);
    expect(isDisposableDomain('inbox.mailinator.com')).toBe(true);
  });

  it('does not flag ordinary domains', () => {
    expect(isDisposableDomain('gmail.com')).toBe(false);
    expect(isDisposableDomain('example.com')).toBe(false);
    expect(isDisposableDomain('com')).toBe(false);
  });
});

describe('isFreeProvider', () => {
  it('knows free mailbox providers', () => {
    expect(isFreeProvider('gmail.com')).toBe(true);
    expect(isFreeProvider('yahoo.com')).toBe(true);
    expect(isFreeProvider('acme-industries.example')).toBe(false);
  });
});

describe('isRoleLocalPart', () => {
  it.each([
    'admin',
    'Info',
    'sales',
    'support',
    'postmaster',
    'noreply',
    'no-reply',
    'abuse',
    'info+newsletter',
  ])('%s is a role', (local) => expect(isRoleLocalPart(local)).toBe(true));

  it.each(['alice', 'john.smith', 'x'])('%s is a person', (local) =>
    expect(isRoleLocalPart(local)).toBe(false),
  );
});

describe('suggestDomain', () => {
  it.each([
    ['gmial.com', 'gmail.com'],
    ['gmai.com', 'gmail.com'],
    ['gnail.com', 'gmail.com'],
    ['gmail.con', 'gmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['yahooo.com', 'yahoo.com'],
    ['gamil.com', 'gmail.com'],
    ['outlok.com', 'outlook.com'],
    ['aol.con', 'aol.com'],
    ['hotmaill.con', 'hotmail.com'],
  ])('suggests %s -> %s', (typo, fix) => {
    expect(suggestDomain(typo)).toBe(fix);
  });

  it.each([
    'gmail.com',
    'ymail.com',
    'mail.com',
    'acme.com',
    'mx.com',
    'stripe.com',
    'example.org',
    'gmx.de',
    'yahoo.ie',
    '[127.0.0.1]',
  ])('leaves %s alone', (domain) => expect(suggestDomain(domain)).toBe(''));
});

describe('editDistance', () => {
  it('counts an adjacent transposition as one edit', () => {
    expect(editDistance('gmial', 'gmail')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('yahooo.com', 'yahoo.com', 1)).toBe(1);
    expect(editDistance('hotmial.co', 'hotmail.com', 2)).toBe(2);
    expect(editDistance('example.org', 'gmail.com', 2)).toBeGreaterThan(2);
  });

  it('is a symmetric distance that is zero only for equal strings', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '.'), maxLength: 8 });
    fc.assert(
      fc.property(word, word, (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b) === 0).toBe(a === b);
        expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });

  it('never reports a distance within the limit that the full computation exceeds', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 8 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, limit) => {
        const full = editDistance(a, b);
        const bounded = editDistance(a, b, limit);
        expect(bounded <= limit).toBe(full <= limit);
        if (full <= limit) expect(bounded).toBe(full);
      }),
    );
  });
});

describe('checkDisposable', () => {
  it('normalises to lowercase and ASCII and says whether the domain is disposable', () => {
    expect(checkDisposable(' John@Mailinator.COM ')).toEqual({
      email: 'john@mailinator.com',
      domain: 'mailinator.com',
      isDisposable: true,
    });
    expect(checkDisposable('anna@bücher.de')).toEqual({
      email: 'anna@xn--bcher-kva.de',
      domain: 'xn--bcher-kva.de',
      isDisposable: false,
    });
  });

  it('throws INVALID_EMAIL on bad syntax', () => {
    expect(() => checkDisposable('not-an-email')).toThrow(DomainError);
    try {
      checkDisposable('');
    } catch (error) {
      expect(error).toMatchObject({ code: 'INVALID_EMAIL' });
    }
  });
});
