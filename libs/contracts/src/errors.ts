/**
 * The error catalogue: every named error code with its numeric code (current style) and HTTP status in each
 * response style.
 */
export const ERROR_CATALOGUE = {
  INVALID_REQUEST: { numericCode: '4000', httpStatus: 400, legacyHttpStatus: 400, label: 'Bad request' },
  INVALID_EMAIL: { numericCode: '4000', httpStatus: 400, legacyHttpStatus: 400, label: 'Invalid email' },
  INVALID_API_KEY: { numericCode: '4010', httpStatus: 401, legacyHttpStatus: 401, label: 'Invalid API key' },
  INSUFFICIENT_CREDITS: {
    numericCode: '4020',
    httpStatus: 402,
    legacyHttpStatus: 403,
    label: 'Insufficient credits',
  },
  NOT_FOUND: { numericCode: '4040', httpStatus: 404, legacyHttpStatus: 404, label: 'Not found' },
  JOB_NOT_FOUND: { numericCode: '4040', httpStatus: 404, legacyHttpStatus: 404, label: 'Job not found' },
  WEBHOOK_NOT_FOUND: {
    numericCode: '4040',
    httpStatus: 404,
    legacyHttpStatus: 404,
    label: 'Webhook not found',
  },
  ACCOUNT_NOT_FOUND: {
    numericCode: '4040',
    httpStatus: 404,
    legacyHttpStatus: 404,
    label: 'Account not found',
  },
  API_KEY_NOT_FOUND: {
    numericCode: '4040',
    httpStatus: 404,
    legacyHttpStatus: 404,
    label: 'API key not found',
  },
  CONFLICT: { numericCode: '4000', httpStatus: 409, legacyHttpStatus: 409, label: 'Conflict' },
  DOWNLOAD_LINK_INVALID: {
    numericCode: '4030',
    httpStatus: 403,
    legacyHttpStatus: 403,
    label: 'Download link invalid or expired',
  },
  PAYLOAD_TOO_LARGE: {
    numericCode: '4130',
    httpStatus: 413,
    legacyHttpStatus: 413,
    label: 'Payload too large',
  },
  RATE_LIMIT_EXCEEDED: {
    numericCode: '4290',
    httpStatus: 429,
    legacyHttpStatus: 429,
    label: 'Rate limit exceeded',
  },
  INTERNAL_ERROR: {
    numericCode: '1000',
    httpStatus: 500,
    legacyHttpStatus: 500,
    label: 'Internal server error',
  },
  SERVICE_UNAVAILABLE: {
    numericCode: '1000',
    httpStatus: 503,
    legacyHttpStatus: 503,
    label: 'Service unavailable',
  },
  TIMEOUT: { numericCode: '1000', httpStatus: 504, legacyHttpStatus: 504, label: 'Verification timed out' },
} as const satisfies Record<string, ErrorSpec>;

export interface ErrorSpec {
  numericCode: string;
  httpStatus: number;
  legacyHttpStatus: number;
  label: string;
}

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}

/** The error part of a reply, as it travels between services. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * A failure that callers should see with its code. Services throw it; transports (HTTP filter, NATS reply)
 * carry code, message and details unchanged.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toBody(): ErrorBody {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}
