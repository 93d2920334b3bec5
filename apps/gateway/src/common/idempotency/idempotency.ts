import { createHash } from 'node:crypto';
import { DomainError, type ResponseStyle } from '@emailverify/contracts';

/** The request header (draft-ietf-httpapi-idempotency-key-header), as Node names it. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set to `true` on a reply that is the stored reply of an earlier request with the same key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const KEY_MAX_LENGTH = 255;

/** The headers of a reply a client reads that belong to the outcome (not to this request, nor its rate limit). */
export const STORED_HEADERS = ['content-type', 'content-disposition', 'location'] as const;

/** A reply as it is kept for replays: status, the outcome's headers, and the body's bytes. */
export interface StoredReply {
  status: number;
  headers: Partial<Record<(typeof STORED_HEADERS)[number], string>>;
  body: Buffer;
}

const malformed = (message: string): DomainError =>
  new DomainError('INVALID_REQUEST', `Idempotency-Key ${message}`, { field: 'Idempotency-Key' });

/**
 * The key of the request's Idempotency-Key header: undefined without one, else 1 to 255 printable ASCII
 * characters (space to ~). The draft sends it as a structured-field string (`"..."`); Stripe's clients send it
 * bare: both are read, so `"abc"` and `abc` are the same key.
 */
export function parseIdempotencyKey(values: readonly string[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw malformed('must be sent once');
  const raw = values[0]!.trim();
  const key = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? unquote(raw) : raw;
  if (key.length === 0) throw malformed('must not be empty');
  if (key.length > KEY_MAX_LENGTH)
    throw malformed(`must be at most ${KEY_MAX_LENGTH} characters (got ${key.length})`);
  if (!/^[\x20-\x7e]+$/.test(key)) throw malformed('must be printable ASCII characters only');
  return key;
}

/** A structured-field string's content: `\"` and `\\` are its only escapes, and a bare `"` cannot occur. */
function unquote(quoted: string): string {
  let out = '';
  for (let i = 1; i < quoted.length - 1; i++) {
    const c = quoted[i]!;
    if (c === '"') throw malformed('has an unescaped quote');
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = i + 1 < quoted.length - 1 ? quoted[i + 1] : undefined;
    if (next !== '"' && next !== '\\') throw malformed('has an invalid escape');
    out += next;
    i++;
  }
  return out;
}

/**
 * The JSON text of a value with every object's keys sorted, so two bodies that differ only in key order or
 * whitespace (a client that serialises its retry again) are the same request. The parsed body is what the
 * gateway has (the JSON guard consumed the bytes), and it is what the request means.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** What makes two requests "the same request" for one key. */
export interface RequestIdentity {
  method: string;
  /** The path with its query, as sent (`/v1/verify/single?x=1`). */
  url: string;
  /** The reply's style is part of the request: a repeat in the other style would not get the same reply. */
  style: ResponseStyle;
  /** A digest of the body: canonical JSON for JSON bodies; the file's SHA-256, name and fields for uploads. */
  bodyDigest: string;
}

export const fingerprint = (r: RequestIdentity): string =>
  sha256(`${r.method.toUpperCase()}\n${r.url}\n${r.style}\n${r.bodyDigest}`);

export const jsonBodyDigest = (body: unknown): string => sha256(canonicalJson(body ?? {}));

/** An upload's digest: the file's bytes (SHA-256), its name and the form's other fields. */
export const uploadDigest = (file: { sha256: string; name: string } | undefined, fields: unknown): string =>
  sha256(canonicalJson({ file: file ?? null, fields: fields ?? {} }));

/** What happens to the key once the first request's reply is known. */
export type Settlement = 'store' | 'release';

/**
 * Stripe's rule: an outcome is kept, a failure to reach one is not. A 5xx (the service failed, the key is free to
 * try again) and a 429 (refused before the request ran) are released; every other reply, 4xx included, is stored
 * and replayed. A reply too large to keep is released too (documented in docs/api.md).
 */
export function settle(status: number, bodyBytes: number, maxBytes: number): Settlement {
  if (status >= 500 || status === 429) return 'release';
  if (bodyBytes > maxBytes) return 'release';
  return 'store';
}

/** What the store said about a key when a request with it began. */
export type Begun =
  | { kind: 'acquired' }
  | { kind: 'done'; fingerprint: string; reply: StoredReply }
  | { kind: 'busy'; retryAfterMs: number }
  | { kind: 'full'; retryAfterMs: number };

/** What the gateway does with a request whose key was found completed, given the request's fingerprint. */
export function decideRepeat(
  stored: Extract<Begun, { kind: 'done' }>,
  requestFingerprint: string,
): { replay: StoredReply } | { error: DomainError } {
  if (stored.fingerprint === requestFingerprint) return { replay: stored.reply };
  return {
    error: new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was used with a different request (method, path, body or reply style); use a new key for a new request',
      { field: 'Idempotency-Key' },
    ),
  };
}

/** The 409 of a key whose first request is still being served. */
export function keyInUse(retryAfterSeconds: number): DomainError {
  return new DomainError(
    'IDEMPOTENCY_KEY_IN_USE',
    'A request with this Idempotency-Key is still being served; retry after it has finished',
    { field: 'Idempotency-Key', retry_after: retryAfterSeconds },
  );
}

/** The 429 of an account that holds its maximum of live keys. */
export function tooManyKeys(max: number, retryAfterSeconds: number): DomainError {
  return new DomainError(
    'IDEMPOTENCY_KEY_LIMIT',
    `This account holds ${max} live Idempotency-Keys, the most it may; a new key is accepted once the oldest expires`,
    { field: 'Idempotency-Key', max, retry_after: retryAfterSeconds },
  );
}

export const toSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
