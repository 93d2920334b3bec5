import { ApiHeader } from '@nestjs/swagger';
import { KEY_MAX_LENGTH } from './idempotency';

/**
 * The Idempotency-Key request header in a route's OpenAPI entry: every POST and DELETE route has it through its
 * kind (ActionRoute, UploadRoute, RemoveRoute). The IdempotencyGuard checks it on both, whatever the docs say.
 */
export const IdempotencyKeyHeader = (): MethodDecorator =>
  ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      `Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): 1-${KEY_MAX_LENGTH} printable ASCII characters, ` +
      'bare or as a quoted string, unique per request, scoped to the account and kept IDEMPOTENCY_TTL_HOURS (24). ' +
      'A repeat of the same request (method, path with query, body or uploaded file and fields, reply style) gets the first reply again with `Idempotent-Replayed: true` and is not run or charged again. ' +
      'The key with another request: 422 IDEMPOTENCY_KEY_REUSED. A repeat while the first is served: 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. ' +
      'A 5xx or 429 reply is not kept: the key is free to retry. A malformed key: 400. Beyond IDEMPOTENCY_MAX_KEYS live keys per account (10000): 429 IDEMPOTENCY_KEY_LIMIT.',
    schema: { type: 'string', minLength: 1, maxLength: KEY_MAX_LENGTH, pattern: '^[\\x20-\\x7E]+$' },
  });
