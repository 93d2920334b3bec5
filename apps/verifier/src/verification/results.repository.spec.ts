import { REASONS, VERIFICATION_STATUSES, type VerificationResult } from '@emailverify/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packResult, unpackResult } from './results.repository';

const text = fc.string({ unit: 'binary', maxLength: 40 });

const result: fc.Arbitrary<VerificationResult> = fc.record({
  email: fc.emailAddress(),
  status: fc.constantFrom(...VERIFICATION_STATUSES),
  reason: fc.constantFrom(...REASONS),
  score: fc.double({ min: 0, max: 1, noNaN: true }),
  isDeliverable: fc.boolean(),
  isDisposable: fc.boolean(),
  isCatchall: fc.boolean(),
  isRole: fc.boolean(),
  isFree: fc.boolean(),
  hasGravatar: fc.boolean(),
  gravatarUrl: text,
  domain: fc.domain(),
  domainAge: fc.nat(),
  mxRecords: fc.array(fc.domain(), { maxLength: 3 }),
  domainReputation: fc.record({
    mxIp: fc.ipV4(),
    isListed: fc.boolean(),
    blacklists: fc.array(fc.domain(), { maxLength: 2 }),
    checked: fc.boolean(),
  }),
  smtpCheck: fc.boolean(),
  smtpResponse: text,
  errorMessage: text,
  domainSuggestion: text,
  responseTime: fc.nat(),
  validFormat: fc.boolean(),
  validDomain: fc.boolean(),
  validMx: fc.boolean(),
  smtpValid: fc.boolean(),
});

describe('the result cache row', () => {
  it('gives back every field of any result, with the address and status of its columns', () => {
    fc.assert(
      fc.property(result, (r) => {
        const text = packResult(r);
        // One line of text: rows travel to PostgreSQL as lines.
        expect(text).not.toContain('\n');
        expect(unpackResult(r.email, r.status, text)).toEqual(r);
      }),
    );
  });

  it('stores neither the address nor the status, which the row has in its columns', () => {
    const r: VerificationResult = {
      ...fc.sample(result, { numRuns: 1, seed: 7 })[0]!,
      email: 'only-in-the-column@example.test',
      status: 'catchall',
      reason: 'catch_all',
      gravatarUrl: '',
      smtpResponse: '',
      errorMessage: '',
      domainSuggestion: '',
    };
    const packed = packResult(r);
    expect(packed).not.toContain('only-in-the-column');
    expect(packed).not.toContain('"catchall"');
    expect(unpackResult(r.email, r.status, packed)).toEqual(r);
  });

  it('refuses a row in any other form: a change of form empties the table instead of being read', () => {
    const earlier = JSON.stringify(['jane@example.test', 'valid', 'mx_found', 0.9]);
    expect(() => unpackResult('jane@example.test', 'valid', earlier)).toThrow(/not in stored form 2/);
  });
});
