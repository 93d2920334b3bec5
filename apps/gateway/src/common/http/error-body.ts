import { ERROR_CATALOGUE, type ErrorCode, type ResponseStyle } from '@emailverify/contracts';

/** An error reply in either style, with that style's HTTP status for the code (ERROR_CATALOGUE). */
export function renderError(
  style: ResponseStyle,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): { status: number; body: unknown } {
  const spec = ERROR_CATALOGUE[code];
  switch (style) {
    case 'current':
      return {
        status: spec.httpStatus,
        body: { success: false, code: spec.numericCode, message: spec.label, error: { code, message } },
      };
    case 'legacy': {
      const { retry_after: retryAfter, cause: _cause, ...rest } = details ?? {};
      const error: Record<string, unknown> = { code, message };
      if (Object.keys(rest).length > 0) error.details = rest;
      if (typeof retryAfter === 'number') error.retry_after = retryAfter;
      return { status: spec.legacyHttpStatus, body: { error } };
    }
  }
}
