import { DomainError } from '@emailverify/contracts';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  decideRepeat,
  fingerprint,
  jsonBodyDigest,
  parseIdempotencyKey,
  type RequestIdentity,
  settle,
  uploadDigest,
} from './idempotency';

/** The DomainError `fn` throws. */
function thrown(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('nothing thrown');
}

describe('parseIdempotencyKey', () => {
  it('takes 1 to 255 printable ASCII characters, bare or as a structured-field string', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey(['8e03978e-40d5-43e8-bc93-6894a57f9324'])).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey(['"order 42: retry"'])).toBe('order 42: retry');
    expect(parseIdempotencyKey(['"say \\"hi\\" \\\\ bye"'])).toBe('say "hi" \\ bye');
    expect(parseIdempotencyKey(['x'])).toBe('x');
    expect(parseIdempotencyKey(['k'.repeat(255)])).toBe('k'.repeat(255));
    expect(parseIdempotencyKey(['~!@#$%^&*()'])).toBe('~!@#$%^&*()');
  });

  it.each([
    ['empty', [''], /must not be empty/],
    ['blank', ['   '], /must not be empty/],
    ['an empty quoted string', ['""'], /must not be empty/],
    ['256 characters', ['k'.repeat(256)], /at most 255 characters \(got 256\)/],
    ['a control character', ['a\tb'], /printable ASCII/],
    ['a non-ASCII character', ['clé'], /printable ASCII/],
    ['a bad escape', ['"a\\nb"'], /invalid escape/],
    ['a bare quote inside quotes', ['"a"b"'], /unescaped quote/],
    ['two headers', ['a', 'b'], /sent once/],
  ])('refuses %s with 400 naming the header', (_what, values, message) => {
    const err = thrown(() => parseIdempotencyKey(values));
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.message).toMatch(/^Idempotency-Key /);
    expect(err.message).toMatch(message);
    expect(err.details).toEqual({ field: 'Idempotency-Key' });
  });
});

describe('request fingerprint', () => {
  const base: RequestIdentity = {
    method: 'POST',
    url: '/v1/verify/single',
    style: 'current',
    bodyDigest: jsonBodyDigest({ email: 'jane@example.com', check_smtp: true }),
  };

  it('is the same for the same JSON in another key order or spacing', () => {
    expect(canonicalJson(JSON.parse('{ "b": [1, {"y": 2, "x": 1}], "a": null }'))).toBe(
      '{"a":null,"b":[1,{"x":1,"y":2}]}',
    );
    expect(
      fingerprint({ ...base, bodyDigest: jsonBodyDigest({ check_smtp: true, email: 'jane@example.com' }) }),
    ).toBe(fingerprint(base));
    expect(jsonBodyDigest(undefined)).toBe(jsonBodyDigest({}));
  });

  it.each<[string, Partial<RequestIdentity>]>([
    ['method', { method: 'DELETE' }],
    ['path', { url: '/v1/verify/bulk' }],
    ['query', { url: '/v1/verify/single?force=1' }],
    ['style', { style: 'legacy' }],
    ['body', { bodyDigest: jsonBodyDigest({ email: 'john@example.com', check_smtp: true }) }],
    ['body value type', { bodyDigest: jsonBodyDigest({ email: 'jane@example.com', check_smtp: 'true' }) }],
  ])('changes with the %s', (_what, change) => {
    expect(fingerprint({ ...base, ...change })).not.toBe(fingerprint(base));
  });

  it("covers an upload's file bytes, its name and the form's fields", () => {
    const file = { sha256: 'a'.repeat(64), name: 'leads.csv' };
    const digest = uploadDigest(file, { check_smtp: 'true' });
    expect(uploadDigest({ ...file }, { check_smtp: 'true' })).toBe(digest);
    expect(uploadDigest({ ...file, sha256: 'b'.repeat(64) }, { check_smtp: 'true' })).not.toBe(digest);
    expect(uploadDigest({ ...file, name: 'other.csv' }, { check_smtp: 'true' })).not.toBe(digest);
    expect(uploadDigest(file, { check_smtp: 'false' })).not.toBe(digest);
    expect(uploadDigest(undefined, { check_smtp: 'true' })).not.toBe(digest);
  });
});

describe('what happens to a key', () => {
  it.each([
    [200, 'store'],
    [400, 'store'],
    [402, 'store'],
    [403, 'store'],
    [404, 'store'],
    [413, 'store'],
    [429, 'release'],
    [500, 'release'],
    [503, 'release'],
    [504, 'release'],
  ] as const)('after a %i reply: %s', (status, outcome) => {
    expect(settle(status, 100, 1024)).toBe(outcome);
  });

  it('is released when the reply is larger than what is kept', () => {
    expect(settle(200, 1024, 1024)).toBe('store');
    expect(settle(200, 1025, 1024)).toBe('release');
  });

  it('replays the stored reply to the same request and refuses another with 422', () => {
    const reply = { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') };
    const stored = { kind: 'done' as const, fingerprint: 'f1', reply };
    expect(decideRepeat(stored, 'f1')).toEqual({ replay: reply });
    const refused = decideRepeat(stored, 'f2');
    expect('error' in refused && refused.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
