import { createHash, randomBytes } from 'node:crypto';

/** Keys carry 32 random bytes (256 bits); the display prefix lets people tell keys apart without the secret. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `ev_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, 10), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
