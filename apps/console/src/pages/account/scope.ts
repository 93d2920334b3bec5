import { ApiProblem } from '../../api/problem';

/**
 * The signed-in key may not manage this (a `verify`-scope key asking for keys or webhooks): trying again does
 * not help, and the forms that would be refused too are not offered.
 */
export function isScopeRefusal(error: unknown): boolean {
  return error instanceof ApiProblem && error.code === 'INSUFFICIENT_SCOPE';
}

/** A loading label, or what it waits for when the query is paused because the browser is offline. */
export function loadingWords(fetchStatus: 'fetching' | 'paused' | 'idle', words: string): string {
  return fetchStatus === 'paused' ? 'Waiting for the network: this loads once you are back online…' : words;
}
