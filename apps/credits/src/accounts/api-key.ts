import { createHash, randomBytes } from 'node:crypto';
import type { KeyMode } from '@emailverify/contracts';

/**
 * Keys carry 32 random bytes (256 bits); the display prefix lets people tell keys apart without the secret. A
 * sandbox key starts `ev_test_`, so it can be told from a live one at a glance (and by secret scanners).
 */
export function generateApiKey(mode: KeyMode = 'live'): { key: string; prefix: string; hash: string } {
  const key = `${mode === 'sandbox' ? 'ev_test_' : 'ev_'}${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, mode === 'sandbox' ? 15 : 10), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
