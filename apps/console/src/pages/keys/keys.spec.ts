import { describe, expect, it } from 'vitest';
import {
  dateFieldValue,
  expiryOf,
  expiryWords,
  isCurrentKey,
  isUsable,
  keyPrefixWords,
  keyStateLook,
  modeLook,
  scopeWords,
} from './key-display';
import { amountWords, ledgerEntryWords, ledgerReference, signedAmount } from './ledger';

const NOW = Date.parse('2026-11-29T10:00:00Z');

describe('a key as the list shows it', () => {
  it('is told apart by its prefix and mode, never by the key itself', () => {
    expect(keyPrefixWords('ev_test_Qm3x9Lp')).toBe('ev_test_Qm3x9Lp…');
    expect(modeLook('sandbox')).toMatchObject({ label: 'Sandbox' });
    expect(modeLook('live')).toMatchObject({ label: 'Live' });
    expect([scopeWords('full'), scopeWords('verify')]).toEqual(['Full access', 'Verification only']);
  });

  it('reads its state: revoked, expired (also when the expiry passed since the list came), active', () => {
    expect(keyStateLook({ status: 'revoked', expires_at: null }, NOW).label).toBe('Revoked');
    expect(keyStateLook({ status: 'expired', expires_at: '2026-11-01T00:00:00Z' }, NOW).label).toBe(
      'Expired',
    );
    expect(keyStateLook({ status: 'active', expires_at: '2026-11-29T09:59:59Z' }, NOW).label).toBe('Expired');
    expect(keyStateLook({ status: 'active', expires_at: null }, NOW).label).toBe('Active');
    expect(isUsable({ status: 'active', expires_at: '2027-01-01T00:00:00Z' }, NOW)).toBe(true);
    expect(isUsable({ status: 'revoked', expires_at: null }, NOW)).toBe(false);
  });

  it('says when it stops working, with the days left when that is soon', () => {
    expect(expiryWords(null, NOW)).toBe('Never');
    expect(expiryWords('2026-12-02T10:00:00Z', NOW)).toMatch(/^2 Dec 2026, \d\d:\d\d \(in 3 days\)$/);
    expect(expiryWords('2026-11-30T09:00:00Z', NOW)).toMatch(/\(in 1 day\)$/);
    expect(expiryWords('2027-06-30T00:00:00Z', NOW)).not.toMatch(/\(in/);
    expect(expiryWords('2026-11-03T10:00:00Z', NOW)).toMatch(/^Expired 3 Nov 2026/);
  });

  it('knows the key the page is signed in with by the id the credits reply names', () => {
    expect(isCurrentKey({ id: 'k1' }, 'k1')).toBe(true);
    expect(isCurrentKey({ id: 'k1' }, 'k2')).toBe(false);
    expect(isCurrentKey({ id: 'k1' }, undefined)).toBe(false);
  });
});

describe('the expiry chosen for a new key', () => {
  const now = new Date(NOW);

  it('never, or a number of days from now', () => {
    expect(expiryOf('never', '', now)).toEqual({ expiresAt: undefined });
    expect(expiryOf('30d', '', now)).toEqual({ expiresAt: '2026-12-29T10:00:00.000Z' });
    expect(expiryOf('1y', '', now)).toEqual({ expiresAt: '2027-11-29T10:00:00.000Z' });
  });

  it('a chosen day lasts until its end, in the person’s time zone', () => {
    const chosen = expiryOf('date', '2027-06-30', now);
    expect(chosen).toEqual({ expiresAt: new Date(2027, 5, 30, 23, 59, 59).toISOString() });
  });

  it('refuses a missing, past or too distant day, in words', () => {
    expect(expiryOf('date', '', now)).toEqual({ problem: 'Choose the day the key should stop working.' });
    expect(expiryOf('date', '2026-11-01', now)).toEqual({ problem: 'Choose a day in the future.' });
    expect(expiryOf('date', '2040-01-01', now)).toEqual({ problem: 'Choose a day within 10 years.' });
  });

  it('writes a date field’s value in local time', () => {
    expect(dateFieldValue(new Date(2027, 0, 5))).toBe('2027-01-05');
  });
});

describe('ledger entries in words', () => {
  it('names what each entry paid for', () => {
    expect(ledgerEntryWords({ type: 'grant', source: null })).toBe('Credits added');
    expect(ledgerEntryWords({ type: 'charge', source: 'bulk' })).toBe('Charge for a bulk verification');
    expect(ledgerEntryWords({ type: 'charge', source: 'single' })).toBe('Charge for a single address');
    expect(ledgerEntryWords({ type: 'refund', source: 'file' })).toBe(
      'Refund of unused credits for a list (file job)',
    );
    expect(ledgerEntryWords({ type: 'charge', source: null })).toBe('Charge');
  });

  it('signs amounts with a plus or a true minus, grouped by thousands', () => {
    expect(signedAmount(1000)).toBe('+1,000');
    expect(signedAmount(-3)).toBe('−3');
    expect(signedAmount(0)).toBe('0');
    expect(amountWords({ type: 'charge', amount: -3 })).toBe('3 credits taken');
    expect(amountWords({ type: 'refund', amount: 1 })).toBe('1 credit given back');
    expect(amountWords({ type: 'grant', amount: 1000 })).toBe('1,000 credits added');
  });

  it('points to the list charged, else to the request id', () => {
    expect(ledgerReference({ job_id: 'j1', request_id: null })).toEqual({ kind: 'job', id: 'j1' });
    expect(ledgerReference({ job_id: null, request_id: 'req-7f3a' })).toEqual({
      kind: 'request',
      id: 'req-7f3a',
    });
    expect(ledgerReference({ job_id: null, request_id: null })).toBeUndefined();
  });
});
