import { createHmac, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export interface SignedDelivery {
  /** The webhook's secret as the create reply gave it: `whsec_` + base64. */
  secret: string;
  /** The delivery's headers; names are matched case-insensitively. */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The body exactly as received: a Buffer, or the string it decodes to. */
  rawBody: Buffer | string;
}

export interface SignatureCheck {
  /** `X-Webhook-Signature` is `sha256=` + hex HMAC-SHA256 (key: the secret string) of `{timestamp}.{body}`. */
  xWebhookSignature: boolean;
  /**
   * `webhook-signature` (Standard Webhooks 1.0) holds a `v1,` + base64 HMAC-SHA256 (key: the base64-decoded
   * part after `whsec_`) of `{webhook-id}.{webhook-timestamp}.{body}`; any one of its space-separated entries.
   */
  standardWebhooks: boolean;
}

/**
 * Checks both signature schemes of a delivery, each on its own, written apart from the service's signer so a
 * test catches a signer that is wrong in the same way as its reader. Missing headers mean `false`.
 */
export function verifySignatures({ secret, headers, rawBody }: SignedDelivery): SignatureCheck {
  if (!secret.startsWith(SECRET_PREFIX))
    throw new Error(`verifySignatures: a webhook secret starts with ${SECRET_PREFIX}`);
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const header = headerReader(headers);
  return {
    xWebhookSignature: checkXWebhookSignature(secret, header, body),
    standardWebhooks: checkStandardWebhooks(secret, header, body),
  };
}

function checkXWebhookSignature(secret: string, header: HeaderReader, body: Buffer): boolean {
  const timestamp = header('x-webhook-timestamp');
  const signature = header('x-webhook-signature');
  if (timestamp === undefined || signature === undefined) return false;
  const expected = `sha256=${hmac(Buffer.from(secret, 'utf8'), [timestamp], body).toString('hex')}`;
  return sameText(signature, expected);
}

function checkStandardWebhooks(secret: string, header: HeaderReader, body: Buffer): boolean {
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) return false;
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const expected = `v1,${hmac(key, [id, timestamp], body).toString('base64')}`;
  // Compare against every entry rather than stopping at the first match.
  return signatures
    .split(' ')
    .map((entry) => sameText(entry, expected))
    .includes(true);
}

/** HMAC-SHA256 of `part1.part2....body`, over the body's bytes as received. */
function hmac(key: Buffer, prefixParts: string[], body: Buffer): Buffer {
  return createHmac('sha256', key)
    .update(prefixParts.map((part) => `${part}.`).join(''), 'utf8')
    .update(body)
    .digest();
}

function sameText(received: string, expected: string): boolean {
  const a = Buffer.from(received, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

type HeaderReader = (name: string) => string | undefined;

/** One value per header name, whatever the case of the names given; a repeated header is not a signature. */
function headerReader(headers: SignedDelivery['headers']): HeaderReader {
  const byName = new Map<string, string | readonly string[] | undefined>();
  for (const [name, value] of Object.entries(headers)) byName.set(name.toLowerCase(), value);
  return (name) => {
    const value = byName.get(name);
    if (typeof value === 'string') return value;
    return value?.length === 1 ? value[0] : undefined;
  };
}
