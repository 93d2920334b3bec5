// The API's error catalogue (docs/api.md "Keys, styles and errors") in plain words: what happened, and what
// the person can do about it. Never the raw reply.
import { type ApiProblem, asProblem } from '../api/problem';

export interface ErrorWords {
  title: string;
  detail: string;
  /** What would help: sign in again, wait and retry, or retry now. */
  action?: 'sign-in' | 'retry' | 'wait';
}

function seconds(n: number): string {
  if (n < 60) return `${n} second${n === 1 ? '' : 's'}`;
  const minutes = Math.ceil(n / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** "This needs 200 credits and the account has 50" (the credits service's wording), as numbers. */
export function creditShortfall(message: string): { needed: number; balance: number } | undefined {
  const m = /needs (\d+) credits? and the account has (-?\d+)/i.exec(message);
  return m ? { needed: Number(m[1]), balance: Number(m[2]) } : undefined;
}

/** A message as a sentence: one full stop at its end. */
function sentence(text: string): string {
  return `${text.replace(/[.\s]+$/, '')}.`;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
}

/** A refusal to wait out: for as long as the reply's Retry-After says, when it says; else `otherwise`. */
function waitWords(title: string, problem: ApiProblem, otherwise: string): ErrorWords {
  const wait = problem.retryAfterSeconds;
  return { title, detail: wait !== undefined ? `Try again in ${seconds(wait)}.` : otherwise, action: 'wait' };
}

export function errorWords(problem: ApiProblem): ErrorWords {
  const { code, detail } = problem;
  switch (code) {
    case 'NETWORK':
      return {
        title: 'The service could not be reached',
        detail: 'Check your network connection. Nothing was lost: try again once you are back online.',
        action: 'retry',
      };
    case 'UNEXPECTED_REPLY':
      return {
        title: 'The service answered in a way the console did not expect',
        detail: `It replied with HTTP status ${problem.status}. Try again in a moment.`,
        action: 'retry',
      };
    case 'INVALID_API_KEY':
      return {
        title: 'Your API key was not accepted',
        detail: 'It may have been revoked or have expired. Sign in again with a key that works.',
        action: 'sign-in',
      };
    case 'INSUFFICIENT_CREDITS': {
      const shortfall = creditShortfall(detail);
      return {
        title: 'Not enough credits',
        detail: shortfall
          ? `This needs ${plural(shortfall.needed, 'credit')} and the account has ${plural(shortfall.balance, 'credit')}. Add credits, or verify fewer addresses.`
          : 'The account does not have the credits this needs. Add credits, or verify fewer addresses.',
      };
    }
    case 'PAYLOAD_TOO_LARGE':
      return {
        title: 'That is too large',
        detail: `${sentence(detail)} Split it into smaller parts and send them one at a time.`,
      };
    case 'RATE_LIMIT_EXCEEDED':
    case 'IDEMPOTENCY_KEY_LIMIT':
      return waitWords('Too many requests for now', problem, 'Wait a moment, then try again.');
    case 'INVALID_EMAIL':
      return { title: 'That address is not written correctly', detail: sentence(detail) };
    case 'INVALID_REQUEST':
      return { title: 'The service could not accept that', detail: sentence(detail) };
    case 'NOT_FOUND':
    case 'JOB_NOT_FOUND':
    case 'WEBHOOK_NOT_FOUND':
    case 'ACCOUNT_NOT_FOUND':
    case 'API_KEY_NOT_FOUND':
      return { title: 'Not found', detail: `${sentence(detail)} It may have been deleted.` };
    case 'DOWNLOAD_LINK_INVALID':
      return {
        title: 'The download link has expired',
        detail: 'Open the job again for a fresh link.',
        action: 'retry',
      };
    case 'INSUFFICIENT_SCOPE':
      return {
        title: 'This key may not do that',
        detail: `${sentence(detail)} Sign in with a key of the full scope to manage keys and webhooks.`,
      };
    case 'CANNOT_REVOKE_CURRENT_KEY':
      return {
        title: 'That is the key you are signed in with',
        detail: 'Sign in with another key first, then revoke this one.',
      };
    case 'IDEMPOTENCY_KEY_IN_USE':
    case 'IDEMPOTENCY_KEY_REUSED':
      return {
        title: 'The same request is already being handled',
        detail: 'Wait for it to finish, then look again.',
        action: 'wait',
      };
    case 'TIMEOUT':
      return {
        title: 'That took too long',
        detail: 'The mail server did not answer in time. Try again, or verify without the mailbox check.',
        action: 'retry',
      };
    case 'SERVICE_UNAVAILABLE':
      return waitWords('The service is busy or partly unavailable', problem, 'Try again in a minute.');
    case 'INTERNAL_ERROR':
      return {
        title: 'Something went wrong on the service’s side',
        detail: `${sentence(detail)} Try again; if it keeps happening, quote this to support.`,
        action: 'retry',
      };
  }
}

/** Whether asking again may work (a network fault, a busy service, a rate limit), not after a refusal (402, 404…). */
export function retryable(error: unknown): boolean {
  const action = errorWords(asProblem(error)).action;
  return action === 'retry' || action === 'wait';
}
