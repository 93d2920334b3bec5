import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiProduces, ApiResponse } from '@nestjs/swagger';
import { ERROR_CATALOGUE, type ErrorCode } from '@emailverify/contracts';
import type { Schema } from './schema';

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
export const sameInBothStyles = (schema: Schema, example: unknown): StyledBody => ({
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

/**
 * The current-style envelope around a `data` schema. It has exactly these four fields, which keeps it apart
 * from every legacy body (each requires fields of its own and none is the envelope).
 */
const envelope = (data: Schema, example: unknown) => ({
  schema: {
    type: 'object',
    required: ['success', 'code', 'message', 'data'],
    additionalProperties: false,
    properties: {
      success: { type: 'boolean', enum: [true] },
      code: { type: 'string', enum: ['0'] },
      message: { type: 'string', example: 'Success' },
      data,
    },
  },
  example: { success: true, code: '0', message: 'Success', data: example },
});

const CurrentError: Schema = {
  type: 'object',
  required: ['success', 'code', 'message', 'error'],
  additionalProperties: false,
  properties: {
    success: { type: 'boolean', enum: [false] },
    code: { type: 'string', description: 'Numeric code, e.g. "4010"' },
    message: { type: 'string' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', description: 'Named code' }, message: { type: 'string' } },
    },
  },
};

/** Exactly `{ error }`: an envelope's fields never appear in the legacy style. */
const LegacyError: Schema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
        retry_after: { type: 'integer', description: 'Seconds to wait (rate limits)' },
      },
    },
  },
};

/**
 * Schemas every route refers to, declared once under components.schemas: an error reply is one of the two
 * styles, never both (the legacy one is exactly `{ error }`, the current one has exactly its four fields).
 */
export const SHARED_SCHEMAS: Record<string, Schema> = {
  CurrentError,
  LegacyError,
  Error: {
    oneOf: [{ $ref: '#/components/schemas/CurrentError' }, { $ref: '#/components/schemas/LegacyError' }],
  },
};

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
  INTERNAL_ERROR: { message: 'An internal error occurred (error id 1b4e28ba-2fa1-11d2-883f-0016d3cca427)' },
  SERVICE_UNAVAILABLE: { message: 'The credits service did not answer; try again' },
  TIMEOUT: { message: 'The verification did not finish within the deadline; try again' },
};

/** One error code as each style renders it (the examples' counterpart of the gateway's error renderer). */
function errorExamples(code: ErrorCode, status: number) {
  const spec = ERROR_CATALOGUE[code];
  const { message, details } = ERROR_EXAMPLES[code];
  const examples: Record<string, { summary: string; value: unknown }> = {};
  if (spec.httpStatus === status) {
    examples[`${code}_current`] = {
      summary: `${code}, current style`,
      value: { success: false, code: spec.numericCode, message: spec.label, error: { code, message } },
    };
  }
  if (spec.legacyHttpStatus === status) {
    const { retry_after: retryAfter, ...rest } = details ?? {};
    examples[`${code}_legacy`] = {
      summary: `${code}, legacy style`,
      value: {
        error: {
          code,
          message,
          ...(Object.keys(rest).length > 0 ? { details: rest } : {}),
          ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
        },
      },
    };
  }
  return examples;
}

/** Error replies grouped by HTTP status (a code's status may differ between styles: 402 and 403 for credits). */
function errorResponses(codes: ErrorCode[]): MethodDecorator[] {
  const statuses = new Set(
    codes.flatMap((c) => [ERROR_CATALOGUE[c].httpStatus, ERROR_CATALOGUE[c].legacyHttpStatus]),
  );
  return [...statuses].map((status) => {
    const examples = Object.assign({}, ...codes.map((code) => errorExamples(code, status))) as Record<
      string,
      { summary: string }
    >;
    const description = codes
      .filter((c) => [ERROR_CATALOGUE[c].httpStatus, ERROR_CATALOGUE[c].legacyHttpStatus].includes(status))
      .map((c) => {
        const { httpStatus, legacyHttpStatus } = ERROR_CATALOGUE[c];
        if (httpStatus === legacyHttpStatus) return c;
        return `${c} (${httpStatus === status ? 'current' : 'legacy'} style)`;
      })
      .join(', ');
    return ApiResponse({
      status,
      description,
      headers: {
        ...(status !== 401 ? RATE_LIMIT_HEADERS : {}),
        ...(status === 429 ? { 'Retry-After': header('Retry-After') } : {}),
      },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples } },
    });
  });
}

/** A reply that is not JSON (a CSV, a redirect): its status, description, and optionally its content. */
export interface OtherReply {
  status: number;
  description: string;
  csv?: boolean;
  redirect?: boolean;
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
  /** Needs no API key (a signed link); rate-limited per client address instead. */
  public?: boolean;
}

/**
 * Everything the OpenAPI document says about one route: summary, the reply in both styles with an example
 * of each, every error with an example per style, and the headers each reply carries.
 */
export function ApiRoute(docs: RouteDocs): MethodDecorator {
  const errors: ErrorCode[] = docs.public
    ? [...docs.errors, 'RATE_LIMIT_EXCEEDED']
    : ['INVALID_REQUEST', 'INVALID_API_KEY', ...docs.errors, 'RATE_LIMIT_EXCEEDED'];
  const decorators: MethodDecorator[] = [
    ApiOperation({
      summary: docs.summary,
      ...(docs.description ? { description: docs.description } : {}),
      ...(docs.public ? { security: [] } : {}),
    }),
  ];
  if (docs.form) decorators.push(ApiConsumes('multipart/form-data'), ApiBody({ schema: docs.form }));
  for (const [name, description] of Object.entries(docs.params ?? {}))
    decorators.push(ApiParam({ name, description }));
  if (docs.ok) {
    const current = envelope(docs.ok.current, docs.ok.currentExample);
    decorators.push(
      ApiResponse({
        status: 200,
        description:
          docs.ok.current === docs.ok.legacy
            ? 'Current style: the envelope with `data`; legacy style (`SVC-Response-Style: legacy` or a legacy key): the same payload, unwrapped (this reply has no older variant).'
            : 'Current style: the envelope with `data`; legacy style (`SVC-Response-Style: legacy` or a legacy key): the older variant, unwrapped.',
        headers: RATE_LIMIT_HEADERS,
        content: {
          'application/json': {
            schema: { oneOf: [current.schema, docs.ok.legacy] },
            examples: {
              current: { summary: 'current style', value: current.example },
              legacy: { summary: 'legacy style', value: docs.ok.legacyExample },
            },
          },
        },
      }),
    );
  }
  for (const reply of docs.replies ?? []) {
    if (reply.csv) decorators.push(ApiProduces('text/csv'));
    decorators.push(
      ApiResponse({
        status: reply.status,
        description: reply.description,
        headers: { ...RATE_LIMIT_HEADERS, ...(reply.redirect ? { Location: header('Location') } : {}) },
        ...(reply.csv ? { content: { 'text/csv': { schema: { type: 'string' } } } } : {}),
      }),
    );
  }
  decorators.push(...errorResponses([...new Set(errors)]));
  return applyDecorators(...decorators);
}
