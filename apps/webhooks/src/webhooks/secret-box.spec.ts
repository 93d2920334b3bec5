import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, parseSecretKey, parseSecretKeys, SecretBox } from './secret-box';

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

describe('SecretBox key ring (WEBHOOK_SECRET_KEYS)', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('seals with the first key and opens what any key of the ring sealed', () => {
    const before = new SecretBox(oldKey);
    const sealedBefore = before.seal('whsec_old', 'w1');
    const ring = new SecretBox([
      { id: 'k2', key: newKey },
      { id: 'default', key: oldKey },
    ]);
    expect(ring.keyId).toBe('k2');
    expect(ring.open(sealedBefore, 'w1', 'default')).toBe('whsec_old');
    expect(ring.open(ring.seal('whsec_new', 'w1'), 'w1', 'k2')).toBe('whsec_new');
    expect(() => ring.open(sealedBefore, 'w1', 'k9')).toThrow('no encryption key "k9"');
  });

  it('parses id:key entries, the first first, and refuses bad ids, keys and repeats', () => {
    const keys = parseSecretKeys(` k2:${newKey.toString('hex')}, default:${oldKey.toString('base64')}`);
    expect(keys).toEqual([
      { id: 'k2', key: newKey },
      { id: 'default', key: oldKey },
    ]);
    expect(() => parseSecretKeys('')).toThrow('at least one key');
    expect(() => parseSecretKeys(newKey.toString('hex'))).toThrow('id:key');
    expect(() => parseSecretKeys('bad id:' + newKey.toString('hex'))).toThrow('id:key');
    expect(() => parseSecretKeys('k1:short')).toThrow('32 bytes');
    expect(() => parseSecretKeys(`k1:${newKey.toString('hex')},k1:${oldKey.toString('hex')}`)).toThrow(
      'once',
    );
  });
});
