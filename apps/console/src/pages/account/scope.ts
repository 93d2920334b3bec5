import { ApiProblem } from '../../api/problem';

/**
 * The signed-in key may not manage this (a `verify`-scope key asking for keys or webhooks): trying again does
 * not help, and the forms that would be refused too are not offered.
 */
export function isScopeRefusal(error: unknown): boolean {
  return error instanceof ApiProblem && error.code === 'INSUFFICIENT_SCOPE';
}
