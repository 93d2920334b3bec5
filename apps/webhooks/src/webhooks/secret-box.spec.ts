import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, parseSecretKey, SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed, and the stored form does not contain the secret', () => {
    const secret = newSigningSecret();
    const sealed = box.seal(secret, 'webhook-1');
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(box.open(sealed, 'webhook-1')).toBe(secret);
  });

  it('refuses a ciphertext moved to another webhook, altered, or opened with another key', () => {
    const sealed = box.seal(newSigningSecret(), 'webhook-1');
    expect(() => box.open(sealed, 'webhook-2')).toThrow();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => box.open(altered, 'webhook-1')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'webhook-1')).toThrow();
  });
});

describe('newSigningSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
  });
});

describe('parseSecretKey', () => {
  it('takes 32 bytes as hex or base64', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
  });
  it.each(['', 'short', 'a'.repeat(63), randomBytes(16).toString('hex'), randomBytes(31).toString('base64')])(
    'refuses %j',
    (value) => {
      expect(() => parseSecretKey(value)).toThrow('32 bytes');
    },
  );
});
