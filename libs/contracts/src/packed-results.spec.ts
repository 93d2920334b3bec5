import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkItemResult } from './file-jobs';
import {
  chunkItemsOf,
  decodeChunkResultMessage,
  encodeChunkResultMessage,
  packChunkItem,
  packChunkResults,
  packResult,
  packResultFields,
  type PackedResult,
  unpackChunkItem,
  unpackResult,
} from './packed-results';
import { REASONS, VERIFICATION_STATUSES, type VerificationResult } from './verification';

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

describe('a packed whole result (the result cache row)', () => {
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

  it('refuses any other form: a change of form empties the cache instead of being read', () => {
    const earlier = JSON.stringify(['jane@example.test', 'valid', 'mx_found', 0.9]);
    expect(() => unpackResult('jane@example.test', 'valid', earlier)).toThrow(/not in form 2/);
  });
});

const item: ChunkItemResult = {
  email: 'jane@files.test',
  status: 'catchall',
  reason: 'catch_all',
  score: 0.7,
  isDeliverable: false,
  isDisposable: false,
  isCatchall: true,
  isRole: false,
  isFree: true,
  domain: 'files.test',
  mxRecords: ['mx1.files.test', 'mx2.files.test'],
  domainSuggestion: 'files.com',
  smtpCheck: true,
  creditsUsed: 1,
};

describe('packed chunk items', () => {
  it('round-trip every field, each flag on its own', () => {
    expect(unpackChunkItem(packChunkItem(item))).toEqual(item);
    for (const flag of [
      'isDeliverable',
      'isDisposable',
      'isCatchall',
      'isRole',
      'isFree',
      'smtpCheck',
    ] as const) {
      const only = {
        ...item,
        isDeliverable: false,
        isDisposable: false,
        isCatchall: false,
        isRole: false,
        isFree: false,
        smtpCheck: false,
        [flag]: true,
      };
      expect(unpackChunkItem(JSON.parse(JSON.stringify(packChunkItem(only))))).toEqual(only);
    }
  });

  it("carry an enriched job's Gravatar and domain age, and nothing of them for another job", () => {
    for (const hasGravatar of [true, false]) {
      const enriched = { ...item, hasGravatar, domainAge: 4017 };
      const packed = packChunkItem(enriched);
      expect(unpackChunkItem(JSON.parse(JSON.stringify(packed)))).toEqual(enriched);
    }
    const plain = unpackChunkItem(packChunkItem(item));
    expect(plain).not.toHaveProperty('hasGravatar');
    expect(plain).not.toHaveProperty('domainAge');
    expect(packChunkItem(item)).toHaveLength(9);
  });

  it('are a good deal smaller than the object', () => {
    expect(JSON.stringify(packChunkItem(item)).length).toBeLessThan(JSON.stringify(item).length / 2);
  });

  it("carry a result's file fields, with the same flag bits as the whole result", () => {
    fc.assert(
      fc.property(result, fc.nat(1), (r, credits) => {
        const packed = packResultFields(r, credits, r.email);
        expect(unpackChunkItem(packed)).toEqual({
          email: r.email,
          status: r.status,
          reason: r.reason,
          score: r.score,
          isDeliverable: r.isDeliverable,
          isDisposable: r.isDisposable,
          isCatchall: r.isCatchall,
          isRole: r.isRole,
          isFree: r.isFree,
          domain: r.domain,
          mxRecords: r.mxRecords,
          domainSuggestion: r.domainSuggestion,
          smtpCheck: r.smtpCheck,
          creditsUsed: credits,
        } satisfies ChunkItemResult);
        const whole = (JSON.parse(packResult(r)) as PackedResult)[3];
        expect(whole & packed[4]).toBe(packed[4]);
      }),
    );
  });
});

describe('packed chunk results', () => {
  it('keep the items as text and count them as file-jobs does when it applies them', () => {
    fc.assert(
      fc.property(
        fc.array(result.map((r) => packResultFields(r, r.status === 'unknown' ? 0 : 1, r.email))),
        (items) => {
          const packed = packChunkResults(items);
          expect(chunkItemsOf(packed.text)).toEqual(items);
          const statuses: Record<string, number> = {};
          for (const item of items) statuses[item[1]] = (statuses[item[1]] ?? 0) + 1;
          expect(packed.counts).toEqual({
            addresses: items.length,
            statuses,
            credits: items.reduce((sum, item) => sum + item[8], 0),
            greylisted: items.filter((item) => item[1] === 'unknown' && item[2] === 'greylisted').length,
          });
        },
      ),
    );
  });
});

describe('a chunk result message on the wire', () => {
  it('comes back as it was sent, the results text unchanged and unescaped on the way', () => {
    fc.assert(
      fc.property(
        fc.array(
          result.map((r) => packResultFields(r, 1, r.email)),
          { maxLength: 10 },
        ),
        fc.boolean(),
        fc.option(fc.uuid(), { nil: undefined }),
        (items, failed, retry) => {
          const message = {
            jobId: '7d0a3a57-0000-4000-8000-000000000001',
            chunk: 3,
            failed,
            results: packChunkResults(items),
            ...(retry === undefined ? {} : { retry }),
          };
          const wire = encodeChunkResultMessage(message);
          expect(decodeChunkResultMessage(wire)).toEqual(message);
          // The text travels as it is: its quotes are not escaped.
          expect(new TextDecoder().decode(wire).endsWith(`\n${message.results.text}`)).toBe(true);
        },
      ),
    );
  });

  it('refuses a message without the line feed that ends its fields', () => {
    const message = {
      jobId: '7d0a3a57-0000-4000-8000-000000000001',
      chunk: 0,
      failed: false,
      results: packChunkResults([packChunkItem(item)]),
    };
    expect(() => decodeChunkResultMessage(new TextEncoder().encode(JSON.stringify(message)))).toThrow(
      /no line feed/,
    );
  });
});
