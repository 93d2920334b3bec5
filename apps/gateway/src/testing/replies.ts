import { ERROR_CATALOGUE, type ErrorCode, type ResponseStyle } from '@emailverify/contracts';
import { expect } from 'vitest';
import type { Reply } from './gateway-harness';

// What every reply of a style looks like, for the gateway's specs.

export const STYLES: ResponseStyle[] = ['current', 'legacy'];

const LEGACY_ERROR_KEYS = ['code', 'message', 'details', 'retry_after'];

/** A successful reply's payload in the given style: the envelope's `data`, or the unwrapped legacy body. */
export function payloadOf(style: ResponseStyle, res: Reply): unknown {
  expect(res.status).toBe(200);
  if (style === 'legacy') {
    expect(res.json.success).toBeUndefined();
    return res.json;
  }
  expect(res.json).toEqual({
    success: true,
    code: '0',
    message: expect.any(String),
    data: expect.anything(),
  });
  return res.json.data;
}

/**
 * An error reply with this status and code in the given style: the current envelope with the catalogue's
 * numeric code and label, or the legacy `{error}` alone. Returns the `error` object for further checks.
 */
export function expectError(
  style: ResponseStyle,
  res: Reply,
  status: number,
  code: ErrorCode,
): { code: string; message: string; details?: Record<string, unknown>; retry_after?: number } {
  expect(res.status).toBe(status);
  if (style === 'current') {
    expect(res.json).toEqual({
      success: false,
      code: ERROR_CATALOGUE[code].numericCode,
      message: ERROR_CATALOGUE[code].label,
      error: { code, message: expect.any(String) },
    });
  } else {
    expect(Object.keys(res.json)).toEqual(['error']);
    expect(res.json.error).toMatchObject({ code, message: expect.any(String) });
    for (const key of Object.keys(res.json.error)) expect(LEGACY_ERROR_KEYS).toContain(key);
  }
  return res.json.error;
}

/** A 400 INVALID_REQUEST naming `field`: in the message (both styles) and in the legacy details. */
export function expectFieldError(style: ResponseStyle, res: Reply, field: string): void {
  const error = expectError(style, res, 400, 'INVALID_REQUEST');
  expect(error.message).toContain(field);
  if (style === 'legacy') expect(error.details).toEqual(expect.objectContaining({ field }));
}
