import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtension, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ERROR_CATALOGUE, type ErrorCode } from '@emailverify/contracts';
import { named, type Schema } from './schema';

/** A reply body documented in both response styles, with one example of each. */
export interface StyledBody {
  /** The component schema name of the `data` payload (current style), e.g. `VerificationResult`. */
  name?: string;
  /** The component schema name of the legacy body, when it differs from the current payload. */
  legacyName?: string;
  current: Schema;
  legacy: Schema;
  currentExample: unknown;
  legacyExample: unknown;
}

/** A body that has no older variant: the legacy style is the current `data` payload without the envelope. */
export const sameInBothStyles = (schema: Schema, example: unknown, name?: string): StyledBody => ({
  ...(name ? { name } : {}),
  current: schema,
  legacy: schema,
  currentExample: example,
  legacyExample: example,
});

/**
 * Response headers, declared once under components.headers. X-Request-Id is on every reply (the document
 * builder adds it); the rate-limit headers are on every reply that passed authentication (not on a 401, nor
 * on a 429 of the failed-authentication limit, which counts per client address).
 */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      "The request's id: the caller's X-Request-Id when it is 1-128 characters of A-Z a-z 0-9 . _ : -, else a new UUID. Every service logs it with the request.",
    required: true,
    schema: { type: 'string', maxLength: 128 },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed per minute for this key and endpoint class',
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'When the current window ends (Unix time, seconds)',
    schema: { type: 'integer' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  Location: {
    description: 'The signed link to the full result file',
    required: true,
    schema: { type: 'string', format: 'uri' },
  },
};

const header = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': header('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': header('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': header('X-RateLimit-Reset'),
};

/** The two reply styles; each has a document of its own. */
export type DocumentStyle = 'current' | 'legacy';

/**
 * The extension that carries an operation's replies in both styles until the document builder splits the
 * document in two (one per style) and puts each style's replies in `responses`.
 */
export const STYLED_RESPONSES = 'x-styled-responses';

/** An operation's replies by status, in one style. */
type Responses = Record<string, Record<string, unknown>>;

/**
 * The current-style envelope around a `data` schema: exactly these four fields. Named `<payload>Reply` when its
 * payload is named, so a generated client reads `data.data.<field>` with no cast.
 */
const envelope = (data: Schema, name?: string): Schema => {
  const schema = {
    type: 'object',
    required: ['success', 'code', 'message', 'data'],
    additionalProperties: false,
    properties: {
      success: { type: 'boolean', enum: [true] },
      code: { type: 'string', enum: ['0'] },
      message: { type: 'string', example: 'Success' },
      data,
    },
  };
  return name ? named(`${name}Reply`, schema, `A successful reply: the envelope around a ${name}`) : schema;
};

/** The named error codes of the catalogue, one enum (`error.code` of every error reply). */
const ErrorCodeSchema = named(
  'ErrorCode',
  { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
  'What went wrong, by name; the HTTP status and the numeric code follow from it (see the manual)',
);

const CurrentError: Schema = named(
  'Error',
  {
    type: 'object',
    required: ['success', 'code', 'message', 'error'],
    additionalProperties: false,
    properties: {
      success: { type: 'boolean', enum: [false] },
      code: { type: 'string', description: 'Numeric code, e.g. "4010"' },
      message: { type: 'string', description: "The numeric code's label" },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: ErrorCodeSchema, message: { type: 'string', description: 'What happened' } },
      },
    },
  },
  'An error reply: the envelope with `success: false` and the named error',
);

/** Exactly `{ error }`: an envelope's fields never appear in the legacy style. */
const LegacyError: Schema = named(
  'Error',
  {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: ErrorCodeSchema,
          message: { type: 'string', description: 'What happened' },
          details: { type: 'object', additionalProperties: true },
          retry_after: { type: 'integer', description: 'Seconds to wait (rate limits)' },
        },
      },
    },
  },
  'An error reply: the named error, with details where there are some',
);

/** What each error says in the examples: one line per code, as the gateway words it. */
const ERROR_EXAMPLES: Record<ErrorCode, { message: string; details?: Record<string, unknown> }> = {
  INVALID_REQUEST: { message: 'email must be a string' },
  INVALID_EMAIL: { message: 'The address has no @', details: { reason: 'invalid_syntax' } },
  INVALID_API_KEY: { message: 'The API key is invalid or revoked' },
  INSUFFICIENT_CREDITS: { message: 'Not enough credits: 1 needed, 0 available' },
  NOT_FOUND: { message: 'Delivery 9b2e4c71-5d3a-4f8e-b6a1-0c7d2e9f4a58 not found' },
  JOB_NOT_FOUND: { message: 'Job 8f0c5a1e-2d34-4b8e-9a0e-5c1f6d7b2a90 not found' },
  WEBHOOK_NOT_FOUND: { message: 'Webhook 3d6f1a52-8c1e-4b7a-9f0e-2a5c7d9e1b34 not found' },
  ACCOUNT_NOT_FOUND: { message: 'Account not found' },
  API_KEY_NOT_FOUND: { message: 'API key not found' },
  DOWNLOAD_LINK_INVALID: { message: 'The download link is invalid or has expired' },
  INSUFFICIENT_SCOPE: { message: 'This API key has the verify scope: it cannot manage keys or webhooks' },
  CANNOT_REVOKE_CURRENT_KEY: {
    message: 'A key cannot revoke itself: revoke it with another key of the account',
  },
  PAYLOAD_TOO_LARGE: { message: 'The request body exceeds 1048576 bytes' },
  RATE_LIMIT_EXCEEDED: {
    message: 'Rate limit of 600 requests per minute exceeded',
    details: { retry_after: 42 },
  },
  IDEMPOTENCY_KEY_REUSED: {
    message:
      'This Idempotency-Key was used with a different request (method, path, body or reply style); use a new key for a new request',
    details: { field: 'Idempotency-Key' },
  },
  IDEMPOTENCY_KEY_IN_USE: {
    message: 'A request with this Idempotency-Key is still being served; retry after it has finished',
    details: { field: 'Idempotency-Key', retry_after: 1 },
  },
  IDEMPOTENCY_KEY_LIMIT: {
    message:
      'This account holds 10000 live Idempotency-Keys, the most it may; a new key is accepted once the oldest expires',
    details: { field: 'Idempotency-Key', max: 10000, retry_after: 3600 },
  },
  INTERNAL_ERROR: { message: 'An internal error occurred (error id 1b4e28ba-2fa1-11d2-883f-0016d3cca427)' },
  SERVICE_UNAVAILABLE: { message: 'The credits service did not answer; try again' },
  TIMEOUT: { message: 'The verification did not finish within the deadline; try again' },
};

/** One error code as a style renders it (the examples' counterpart of the gateway's error renderer). */
function errorExample(code: ErrorCode, style: DocumentStyle) {
  const spec = ERROR_CATALOGUE[code];
  const { message, details } = ERROR_EXAMPLES[code];
  if (style === 'current') {
    return { success: false, code: spec.numericCode, message: spec.label, error: { code, message } };
  }
  const { retry_after: retryAfter, ...rest } = details ?? {};
  return {
    error: {
      code,
      message,
      ...(Object.keys(rest).length > 0 ? { details: rest } : {}),
      ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
    },
  };
}

/** The HTTP status of an error code in a style (credits: 402 in the current style, 403 in the legacy one). */
const statusOf = (code: ErrorCode, style: DocumentStyle): number =>
  style === 'current' ? ERROR_CATALOGUE[code].httpStatus : ERROR_CATALOGUE[code].legacyHttpStatus;

/** Error replies of one style, grouped by HTTP status, with an example of each code. */
function errorResponses(codes: ErrorCode[], style: DocumentStyle): Responses {
  const responses: Responses = {};
  for (const status of new Set(codes.map((code) => statusOf(code, style)))) {
    const here = codes.filter((code) => statusOf(code, style) === status);
    responses[String(status)] = {
      description: here.join(', '),
      headers: {
        ...(status !== 401 ? RATE_LIMIT_HEADERS : {}),
        ...(status === 429 ? { 'Retry-After': header('Retry-After') } : {}),
      },
      content: {
        'application/json': {
          schema: style === 'current' ? CurrentError : LegacyError,
          examples: Object.fromEntries(
            here.map((code) => [code, { summary: code, value: errorExample(code, style) }]),
          ),
        },
      },
    };
  }
  return responses;
}

/** A reply that is not JSON (a CSV, a redirect): its status, description, and optionally its content. */
export interface OtherReply {
  status: number;
  description: string;
  csv?: boolean;
  redirect?: boolean;
  /** The one style that answers it (a redirect only in the current style); both when omitted. */
  style?: DocumentStyle;
}

export interface RouteDocs {
  /** The operation id, named as an SDK method (`verifySingle`, `listFileJobs`). */
  operationId?: string;
  summary: string;
  description?: string;
  /** The 200 JSON reply in both styles. */
  ok?: StyledBody;
  /** Replies that are not JSON. */
  replies?: OtherReply[];
  /**
   * The errors this route can answer, besides those every authenticated route can: a missing or wrong key
   * (401), a malformed SVC-Response-Style (400) and a rate limit (429).
   */
  errors: ErrorCode[];
  /** A multipart form body (an upload): its fields. */
  form?: Schema;
  /** What each path parameter names. */
  params?: Record<string, string>;
  /** Needs no API key (a signed link); rate-limited per client address instead. Set by SignedLinkRoute. */
  public?: boolean;
}

/** The 200 JSON reply in one style: the envelope around the payload, or the legacy body as it is. */
function okResponse(ok: StyledBody, style: DocumentStyle): Responses {
  const same = ok.current === ok.legacy;
  if (style === 'current') {
    const data = ok.name ? named(ok.name, ok.current, undefined, ok.currentExample) : ok.current;
    return {
      '200': {
        description: 'The envelope with the result in `data`',
        headers: RATE_LIMIT_HEADERS,
        content: {
          'application/json': {
            schema: envelope(data, ok.name),
            example: { success: true, code: '0', message: 'Success', data: ok.currentExample },
          },
        },
      },
    };
  }
  const legacyName = ok.legacyName ?? ok.name;
  return {
    '200': {
      description: same
        ? 'The result, unwrapped (this reply has no older variant: it is the current `data`)'
        : 'The result in its older variant, unwrapped',
      headers: RATE_LIMIT_HEADERS,
      content: {
        'application/json': {
          schema: legacyName ? named(legacyName, ok.legacy, undefined, ok.legacyExample) : ok.legacy,
          example: ok.legacyExample,
        },
      },
    },
  };
}

/** Every reply of a route in one style. */
function styledResponses(docs: RouteDocs, errors: ErrorCode[], style: DocumentStyle): Responses {
  const responses: Responses = docs.ok ? okResponse(docs.ok, style) : {};
  for (const reply of docs.replies ?? []) {
    if (reply.style && reply.style !== style) continue;
    responses[String(reply.status)] = {
      description: reply.description,
      headers: { ...RATE_LIMIT_HEADERS, ...(reply.redirect ? { Location: header('Location') } : {}) },
      ...(reply.csv ? { content: { 'text/csv': { schema: { type: 'string' } } } } : {}),
    };
  }
  return { ...responses, ...errorResponses(errors, style) };
}

/**
 * Everything the OpenAPI documents say about one route: its operation id, summary, the reply in each style
 * with an example, every error with an example per style, and the headers each reply carries. The replies of
 * both styles ride on the operation (STYLED_RESPONSES); the document builder gives each document its own.
 */
export function ApiRoute(docs: RouteDocs): MethodDecorator {
  const errors: ErrorCode[] = docs.public
    ? [...docs.errors, 'RATE_LIMIT_EXCEEDED']
    : ['INVALID_REQUEST', 'INVALID_API_KEY', ...docs.errors, 'RATE_LIMIT_EXCEEDED'];
  const unique = [...new Set(errors)];
  const decorators: MethodDecorator[] = [
    ApiOperation({
      summary: docs.summary,
      ...(docs.operationId ? { operationId: docs.operationId } : {}),
      ...(docs.description ? { description: docs.description } : {}),
      ...(docs.public ? { security: [] } : {}),
    }),
    ApiExtension(STYLED_RESPONSES, {
      current: styledResponses(docs, unique, 'current'),
      legacy: styledResponses(docs, unique, 'legacy'),
    }),
  ];
  if (docs.form) decorators.push(ApiConsumes('multipart/form-data'), ApiBody({ schema: docs.form }));
  for (const [name, description] of Object.entries(docs.params ?? {}))
    decorators.push(ApiParam({ name, description }));
  return applyDecorators(...decorators);
}
