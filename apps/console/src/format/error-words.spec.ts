import { describe, expect, it } from 'vitest';
import { ApiProblem, problemOf, retryAfterSeconds } from '../api/problem';
import { creditShortfall, errorWords } from './error-words';

function reply(status: number, body: unknown, headers: Record<string, string> = {}) {
  return problemOf(new Response(JSON.stringify(body), { status, headers }), body);
}

const envelope = (code: string, message: string) => ({
  success: false,
  code: '4000',
  message: 'label',
  error: { code, message },
});

describe('errors in plain words', () => {
  it('402: what the request needs and what the account has, from the credits service’s message', () => {
    const problem = reply(
      402,
      envelope('INSUFFICIENT_CREDITS', 'This needs 200 credits and the account has 50'),
    );
    expect(errorWords(problem)).toEqual({
      title: 'Not enough credits',
      detail:
        'This needs 200 credits and the account has 50 credits. Add credits, or verify fewer addresses.',
    });
    expect(creditShortfall('This needs 1 credit and the account has 0')).toEqual({ needed: 1, balance: 0 });
  });

  it('402 in other words still says what happened, without numbers', () => {
    const words = errorWords(reply(402, envelope('INSUFFICIENT_CREDITS', 'Not enough credits')));
    expect(words.detail).toBe(
      'The account does not have the credits this needs. Add credits, or verify fewer addresses.',
    );
  });

  it('429: when to try again, from Retry-After', () => {
    const seconds = reply(429, envelope('RATE_LIMIT_EXCEEDED', 'Too many requests'), { 'Retry-After': '12' });
    expect(errorWords(seconds)).toMatchObject({ detail: 'Try again in 12 seconds.', action: 'wait' });
    const minutes = reply(429, envelope('RATE_LIMIT_EXCEEDED', 'x'), { 'Retry-After': '61' });
    expect(errorWords(minutes).detail).toBe('Try again in 2 minutes.');
    const none = reply(429, envelope('RATE_LIMIT_EXCEEDED', 'x'));
    expect(errorWords(none).detail).toBe('Wait a moment, then try again.');
  });

  it('413: the service’s limit, and what to do', () => {
    const words = errorWords(reply(413, envelope('PAYLOAD_TOO_LARGE', 'The file is larger than 100 MiB.')));
    expect(words).toEqual({
      title: 'That is too large',
      detail: 'The file is larger than 100 MiB. Split it into smaller parts and send them one at a time.',
    });
  });

  it('401: sign in again', () => {
    expect(
      errorWords(reply(401, envelope('INVALID_API_KEY', 'The API key is invalid or revoked'))),
    ).toMatchObject({
      title: 'Your API key was not accepted',
      action: 'sign-in',
    });
  });

  it('a reply that is not the error envelope, and no reply at all, are never shown raw', () => {
    const html = problemOf(new Response('<html>Bad gateway</html>', { status: 502 }), undefined);
    expect(errorWords(html)).toEqual({
      title: 'The service answered in a way the console did not expect',
      detail: 'It replied with HTTP status 502. Try again in a moment.',
      action: 'retry',
    });
    expect(errorWords(new ApiProblem(0, 'NETWORK', 'Failed to fetch')).title).toBe(
      'The service could not be reached',
    );
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterSeconds('30')).toBe(30);
    expect(retryAfterSeconds(null)).toBeUndefined();
    expect(retryAfterSeconds('soon')).toBeUndefined();
    const now = Date.parse('2026-11-29T10:00:00Z');
    expect(retryAfterSeconds('Sun, 29 Nov 2026 10:01:30 GMT', now)).toBe(90);
  });
});
