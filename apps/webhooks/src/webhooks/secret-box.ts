import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key of WEBHOOK_SECRET_KEY: exactly 32 bytes, written as 64 hex digits or as base64. */
export function parseSecretKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)
      ? Buffer.from(trimmed, 'base64')
      : Buffer.alloc(0);
  if (key.length !== 32) throw new Error('must be 32 bytes, as 64 hex digits or base64');
  return key;
}

/**
 * Encrypts webhook signing secrets at rest with AES-256-GCM. The webhook id is authenticated with each secret,
 * so a ciphertext copied onto another row does not decrypt there. Stored form: IV, tag, ciphertext.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(secret: string, webhookId: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(webhookId));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  open(stored: Buffer, webhookId: string): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, stored.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(webhookId));
    decipher.setAuthTag(stored.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(stored.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks form). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
