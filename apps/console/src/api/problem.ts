import type { Schemas } from '@emailverify/client';

export type ErrorCode = Schemas['ErrorCode'];

/**
 * A request that did not succeed, as the console tells it: the HTTP status and the catalogue's code and message
 * when the service answered, `network` when it could not be reached.
 */
export class ApiProblem extends Error {
  constructor(
    /** 0 when no reply came (network). */
    readonly status: number,
    readonly code: ErrorCode | 'NETWORK' | 'UNEXPECTED_REPLY',
    readonly detail: string,
    /** Seconds to wait, from Retry-After (429, 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status} ${code}: ${detail}`);
    this.name = 'ApiProblem';
  }
}

/** Retry-After in seconds (a number of seconds or an HTTP date), when present and sane. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

function isErrorBody(body: unknown): body is Schemas['Error'] {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** The problem an error reply stands for: the catalogue's code when the body carries one. */
export function problemOf(response: Response, body: unknown): ApiProblem {
  const retry = retryAfterSeconds(response.headers.get('Retry-After'));
  if (isErrorBody(body)) return new ApiProblem(response.status, body.error.code, body.error.message, retry);
  return new ApiProblem(response.status, 'UNEXPECTED_REPLY', `HTTP ${response.status}`, retry);
}

export function asProblem(error: unknown): ApiProblem {
  if (error instanceof ApiProblem) return error;
  return new ApiProblem(0, 'NETWORK', error instanceof Error ? error.message : String(error));
}
