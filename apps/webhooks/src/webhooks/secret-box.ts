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

/** The id a lone WEBHOOK_SECRET_KEY has, so rows sealed before key ids existed keep opening with it. */
export const SINGLE_KEY_ID = 'default';

/** One encryption key of the key ring and the id stored with every secret it seals. */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/**
 * WEBHOOK_SECRET_KEYS: `id:key,id:key,...`, the first key sealing new secrets and the others only opening
 * what they sealed. Ids are 1 to 32 letters, digits, `_` or `-`, each used once.
 */
export function parseSecretKeys(value: string): SecretKey[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('must name at least one key as id:key');
  const keys = entries.map((entry) => {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon);
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(id))
      throw new Error('each entry must be id:key, the id 1 to 32 letters, digits, _ or -');
    return { id, key: parseSecretKey(entry.slice(colon + 1)) };
  });
  const ids = new Set(keys.map((k) => k.id));
  if (ids.size !== keys.length) throw new Error('each key id may appear once');
  return keys;
}

/**
 * Encrypts webhook signing secrets at rest with AES-256-GCM. The webhook id is authenticated with each secret,
 * so a ciphertext copied onto another row does not decrypt there. Stored form: IV, tag, ciphertext; the id of
 * the key that sealed it is stored beside it. The first key of the ring seals; every key of it opens.
 */
export class SecretBox {
  private readonly ring: ReadonlyMap<string, Buffer>;
  /** The id of the key new secrets are sealed with. */
  readonly keyId: string;

  constructor(keys: Buffer | readonly SecretKey[]) {
    const list = Buffer.isBuffer(keys) ? [{ id: SINGLE_KEY_ID, key: keys }] : keys;
    if (list.length === 0 || list.some((k) => k.key.length !== 32))
      throw new Error('SecretBox needs 32-byte keys');
    this.ring = new Map(list.map((k) => [k.id, k.key]));
    this.keyId = list[0]!.id;
  }

  /** True when the ring holds the key of that id (rows sealed by another cannot be opened here). */
  has(keyId: string): boolean {
    return this.ring.has(keyId);
  }

  seal(secret: string, webhookId: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyOf(this.keyId), iv);
    cipher.setAAD(Buffer.from(webhookId));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  open(stored: Buffer, webhookId: string, keyId: string = this.keyId): string {
    const decipher = createDecipheriv('aes-256-gcm', this.keyOf(keyId), stored.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(webhookId));
    decipher.setAuthTag(stored.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(stored.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }

  private keyOf(keyId: string): Buffer {
    const key = this.ring.get(keyId);
    if (!key) throw new Error(`no encryption key "${keyId}" in WEBHOOK_SECRET_KEYS`);
    return key;
  }
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks form). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
