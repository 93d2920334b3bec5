/**
 * A code's numeric code (current style), label and HTTP status, the same in both styles unless a legacy status
 * is given.
 */
const spec = (
  numericCode: string,
  httpStatus: number,
  label: string,
  legacyHttpStatus = httpStatus,
): ErrorSpec => ({
  numericCode,
  httpStatus,
  legacyHttpStatus,
  label,
});

/**
 * The error catalogue: every named error code with its numeric code (current style) and HTTP status in each
 * response style.
 */
export const ERROR_CATALOGUE = {
  INVALID_REQUEST: spec('4000', 400, 'Bad request'),
  INVALID_EMAIL: spec('4000', 400, 'Invalid email'),
  INVALID_API_KEY: spec('4010', 401, 'Invalid API key'),
  INSUFFICIENT_CREDITS: spec('4020', 402, 'Insufficient credits', 403),
  NOT_FOUND: spec('4040', 404, 'Not found'),
  JOB_NOT_FOUND: spec('4040', 404, 'Job not found'),
  WEBHOOK_NOT_FOUND: spec('4040', 404, 'Webhook not found'),
  ACCOUNT_NOT_FOUND: spec('4040', 404, 'Account not found'),
  API_KEY_NOT_FOUND: spec('4040', 404, 'API key not found'),
  DOWNLOAD_LINK_INVALID: spec('4030', 403, 'Download link invalid or expired'),
  /** The key's scope (or mode) does not allow this: a `verify` key on /v1/keys or /v1/webhooks. */
  INSUFFICIENT_SCOPE: spec('4030', 403, 'Insufficient scope'),
  /** A key cannot revoke itself: the caller would lock itself out mid-request. */
  CANNOT_REVOKE_CURRENT_KEY: spec('4090', 409, 'Cannot revoke the key in use'),
  PAYLOAD_TOO_LARGE: spec('4130', 413, 'Payload too large'),
  RATE_LIMIT_EXCEEDED: spec('4290', 429, 'Rate limit exceeded'),
  INTERNAL_ERROR: spec('1000', 500, 'Internal server error'),
  SERVICE_UNAVAILABLE: spec('1000', 503, 'Service unavailable'),
  TIMEOUT: spec('1000', 504, 'Verification timed out'),
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
