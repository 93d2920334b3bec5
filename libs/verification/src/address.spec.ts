import { DomainError } from '@emailverify/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_ADDRESS_OCTETS,
  MAX_LOCAL_PART_OCTETS,
  assertValidAddress,
  parseAddress,
  parseNormalised,
} from './address';

function ok(input: string) {
  const parsed = parseAddress(input);
  if (!parsed.ok) throw new Error(`expected ${JSON.stringify(input)} to parse: ${parsed.message}`);
  return parsed;
}

function rejected(input: unknown) {
  const parsed = parseAddress(input);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(input)} to be rejected, got ${parsed.email}`);
  return parsed;
}

describe('parseAddress', () => {
  it.each([
    ['user@example.com', 'user', 'example.com'],
    ['  First.Last@Example.COM \n', 'First.Last', 'example.com'],
    ["o'brien+tag@sub.example.co.uk", "o'brien+tag", 'sub.example.co.uk'],
    ['!#$%&*+-/=?^_`{|}~@example.com', '!#$%&*+-/=?^_`{|}~', 'example.com'],
    ['"john doe"@example.com', '"john doe"', 'example.com'],
    ['"a@b"@example.com', '"a@b"', 'example.com'],
    ['"quote\\"inside"@example.com', '"quote\\"inside"', 'example.com'],
    ['用户@例え.テスト', '用户', 'xn--r8jz45g.xn--zckzah'],
    ['user@ÄÖ.com', 'user', 'xn--4ca0b.com'],
    ['josé@bücher.de', 'josé', 'xn--bcher-kva.de'],
    ['user@XN--BCHER-KVA.DE', 'user', 'xn--bcher-kva.de'],
    ['user@[127.0.0.1]', 'user', '[127.0.0.1]'],
    ['user@[IPv6:2001:DB8::1]', 'user', '[ipv6:2001:db8::1]'],
    ['user@[2001:DB8::1]', 'user', '[ipv6:2001:db8::1]'],
    ['a@b.co', 'a', 'b.co'],
  ])('accepts %j', (input, local, domain) => {
    const parsed = ok(input);
    expect(parsed.local).toBe(local);
    expect(parsed.domain).toBe(domain);
    expect(parsed.email).toBe(`${local}@${domain}`);
  });

  it('keeps the IP of an address literal for dialling', () => {
    expect(ok('x@[192.0.2.1]').ipLiteral).toBe('192.0.2.1');
    expect(ok('x@[IPv6:::1]').ipLiteral).toBe('::1');
    expect(ok('x@[::1]').ipLiteral).toBe('::1');
    expect(ok('x@example.com').ipLiteral).toBeUndefined();
  });

  it.each([
    [undefined, /no email address/],
    [null, /no email address/],
    [42, /no email address/],
    ['', /empty/],
    ['   ', /empty/],
  ])('reports %j as missing', (input, message) => {
    const error = rejected(input);
    expect(error.reason).toBe('missing_email');
    expect(error.message).toMatch(message);
  });

  it.each([
    ['plainaddress', /no "@"/],
    ['@example.com', /local part before "@" is empty/],
    ['user@', /domain part after "@" is empty/],
    ['a@b@example.com', /more than one "@"/],
    ['.user@example.com', /must not start with "\."/],
    ['user.@example.com', /must not end with "\."/],
    ['us..er@example.com', /"\.\."/],
    ['us er@example.com', /U\+0020/],
    ['us(er)@example.com', /"\("/],
    ['"unterminated@example.com', /no closing quote/],
    ['"a"b@example.com', /followed directly by "@"/],
    ['"a\u0001"@example.com', /U\+0001/],
    ['us\u00a0er@example.com', /U\+00A0/],
    ['us\u200ber@example.com', /U\+200B, a control or invisible character/],
    ['user\u0000@example.com', /U\+0000/],
    ['"a\u202eb"@example.com', /U\+202E/],
    ['"a\u007f"@example.com', /U\+007F/],
    ['user@exam\u00adple.com', /U\+00AD/],
    ['user@example.com\u200e', /U\+200E/],
    ['user@[::1%eth0]', /not a valid address literal/],
    ['user@example', /no top-level domain/],
    ['user@example.com.', /must not end with "\."/],
    ['user@exa_mple.com', /"_"/],
    ['user@exa mple.com', /U\+0020/],
    ['user@example.com/path', /"\/"/],
    ['user@-example.com', /label "-example"/],
    ['user@example-.com', /label "example-"/],
    ['user@exa..mple.com', /empty label/],
    ['user@1.2.3.4', /address literal/],
    ['user@[1.2.3]', /not a valid address literal/],
    ['user@[IPv6:zz::1]', /not a valid IPv6/],
    ['user@[IPv6:fe80::1%eth0]', /not a valid IPv6/],
    ['user@[127.0.0.1', /no closing "\]"/],
    ['user@xn--zz.com', /not a valid internationalised domain/],
    ['user@xn--a-ecp.ru', /not a valid internationalised domain/],
    [`user@${'a'.repeat(64)}.com`, /longer than 63/],
  ])('rejects %j with a message saying why', (input, message) => {
    const error = rejected(input);
    expect(error.reason).toBe('invalid_syntax');
    expect(error.message).toMatch(message);
  });

  it('counts the local part limit in octets, not characters', () => {
    expect(ok(`${'a'.repeat(64)}@example.com`).local).toHaveLength(64);
    expect(rejected(`${'a'.repeat(65)}@example.com`).message).toMatch(/65 octets/);
    // 22 three-octet characters are 66 octets although only 22 characters.
    expect(rejected(`${'用'.repeat(22)}@example.com`).message).toMatch(/66 octets/);
    expect(ok(`${'用'.repeat(21)}@example.com`).local).toHaveLength(21);
  });

  it('limits the whole address to 254 octets', () => {
    const label = 'a'.repeat(63);
    const domain = `${label}.${label}.${label}.com`;
    const local = 'b'.repeat(MAX_ADDRESS_OCTETS - domain.length - 1);
    expect(local.length).toBeLessThanOrEqual(MAX_LOCAL_PART_OCTETS);
    expect(ok(`${local}@${domain}`).email).toHaveLength(MAX_ADDRESS_OCTETS);
    expect(rejected(`${local}b@${domain}`).message).toMatch(/255 octets/);
  });
});

/** Every code point of Unicode's Cc (control) and Cf (format) categories. */
const CONTROL_OR_FORMAT: string[] = [];
for (let code = 0; code <= 0x10ffff; code++) {
  if (code >= 0xd800 && code <= 0xdfff) continue;
  const c = String.fromCodePoint(code);
  if (/[\p{Cc}\p{Cf}]/u.test(c)) CONTROL_OR_FORMAT.push(c);
}

describe('control and invisible format characters', () => {
  it('make any address invalid syntax, wherever they stand inside it', () => {
    fc.assert(
      fc.property(
        fc.emailAddress(),
        fc.constantFrom(...CONTROL_OR_FORMAT),
        fc.nat(),
        fc.boolean(),
        (address, hidden, at, quoted) => {
          const base = quoted
            ? `"${address.slice(0, address.lastIndexOf('@'))}"${address.slice(address.lastIndexOf('@'))}`
            : address;
          // Inside the address: leading and trailing whitespace (tab, LF, U+FEFF...) is trimmed, as for any address.
          const position = 1 + (at % (base.length - 1));
          const input = `${base.slice(0, position)}${hidden}${base.slice(position)}`;
          const parsed = parseAddress(input);
          expect(parsed.ok).toBe(false);
          if (parsed.ok) return;
          expect(parsed.reason).toBe('invalid_syntax');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('are named by code point in the message', () => {
    for (const hidden of ['\u0000', '\u001f', '\u200b', '\u202e', '\ufeff', '\u{e0001}']) {
      const code = hidden.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      expect(rejected(`ab${hidden}c@example.com`).message).toContain(`U+${code}`);
    }
  });
});

describe('assertValidAddress', () => {
  it('returns the parsed address', () => {
    expect(assertValidAddress(' User@Example.com ').email).toBe('User@example.com');
  });

  it('throws INVALID_EMAIL with the parser message', () => {
    const attempt = () => assertValidAddress('nope');
    expect(attempt).toThrow(DomainError);
    expect(attempt).toThrow(/no "@"/);
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('INVALID_EMAIL');
    }
  });
});

describe('parseAddress properties', () => {
  // Inputs close to addresses: mixed case, IDN labels, spaces and odd characters, so both branches are hit.
  const labelChar = fc.constantFrom(...'abcXYZ019-_ü例.'.split(''));
  const localChar = fc.constantFrom(...'abcXYZ09.+!"\\ 用@'.split(''));
  const nearAddress = fc
    .tuple(
      fc.string({ unit: localChar, minLength: 0, maxLength: 70 }),
      fc.string({ unit: labelChar, minLength: 0, maxLength: 30 }),
      fc.constantFrom('com', 'DE', 'co.uk', 'xn--p1ai', 'рф', ''),
      fc.constantFrom('', ' ', '\t'),
    )
    .map(([local, name, tld, pad]) => `${pad}${local}@${name}${tld ? '.' : ''}${tld}${pad}`);
  const anyInput = fc.oneof(nearAddress, fc.emailAddress(), fc.string());

  it('is idempotent: a normalised address parses to itself', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const first = parseAddress(input);
        if (!first.ok) return;
        const second = parseAddress(first.email);
        expect(second).toEqual(first);
      }),
      { numRuns: 2000 },
    );
  });

  it('parseNormalised gives what parseAddress gives for every normalised address', () => {
    const literalOrQuoted = fc.constantFrom(
      'someone@[127.0.0.1]',
      'someone@[IPv6:::1]',
      '"a@b"@example.com',
      '"with space"@Example.COM',
      'user@xn--p1ai',
    );
    fc.assert(
      fc.property(fc.oneof(anyInput, literalOrQuoted), (input) => {
        const parsed = parseAddress(input);
        if (!parsed.ok) return;
        expect(parseNormalised(parsed.email)).toEqual(parsed);
      }),
      { numRuns: 3000 },
    );
  });

  it('yields a lowercase ASCII domain and respects the length limits', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const parsed = parseAddress(input);
        if (!parsed.ok) {
          expect(parsed.message.length).toBeGreaterThan(0);
          return;
        }
        expect(parsed.domain).toBe(parsed.domain.toLowerCase());
        expect(parsed.domain).toMatch(/^[\x21-\x7e]+$/);
        expect(Buffer.byteLength(parsed.local)).toBeLessThanOrEqual(MAX_LOCAL_PART_OCTETS);
        expect(Buffer.byteLength(parsed.email)).toBeLessThanOrEqual(MAX_ADDRESS_OCTETS);
        expect(parsed.email).toBe(`${parsed.local}@${parsed.domain}`);
        expect(parsed.email).toBe(parsed.email.trim());
      }),
      { numRuns: 2000 },
    );
  });

  it('judges a domain the same whatever its case: accepted or refused alike, to the same normalised form', () => {
    // Lowercase domains that look normalised already are checked as written, other ones through the host
    // parser; the two must agree, also on the edges (numeric and "0x" labels, punycode, hyphens, lengths).
    const label = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'ax09-'.split('')), minLength: 0, maxLength: 6 }),
      fc.constantFrom('xn--p1ai', 'xn--zz', '0x1f', '0x', '255', 'a'.repeat(63), 'b'.repeat(64)),
    );
    const domain = fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => labels.join('.'));
    fc.assert(
      fc.property(domain, fc.boolean(), (name, trailingDot) => {
        const lower = parseAddress(`user@${name}${trailingDot ? '.' : ''}`);
        const upper = parseAddress(`user@${name.toUpperCase()}${trailingDot ? '.' : ''}`);
        expect(lower.ok).toBe(upper.ok);
        if (lower.ok && upper.ok) expect(lower).toEqual(upper);
        else if (!lower.ok && !upper.ok) expect(lower.reason).toBe(upper.reason);
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts every RFC-shaped address fast-check generates that fits the limits', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (address) => {
        const [local] = address.split('@');
        if (Buffer.byteLength(local) > MAX_LOCAL_PART_OCTETS || address.length > MAX_ADDRESS_OCTETS) return;
        const parsed = parseAddress(address);
        expect(parsed.ok).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('ignores the case of the domain and surrounding whitespace', () => {
    fc.assert(
      fc.property(fc.emailAddress(), fc.constantFrom('', ' ', '\n', '\t '), (address, pad) => {
        const at = address.lastIndexOf('@');
        const shouted = `${pad}${address.slice(0, at)}@${address.slice(at + 1).toUpperCase()}${pad}`;
        expect(parseAddress(shouted)).toEqual(parseAddress(address));
      }),
      { numRuns: 500 },
    );
  });
});
