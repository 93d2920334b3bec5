// The console's one way to the API: the typed client of libs/client on the page's own origin, with the signed-in
// key. A 401 signs out with a message; a request that cannot connect marks the service unreachable.
import { createEmailVerifyClient, type EmailVerifyClient } from '@emailverify/client';
import { reportReachable } from './connectivity';
import { ApiProblem, problemOf } from './problem';
import { currentSession, signOut } from './session';

export const SIGNED_OUT_ON_401 =
  'You were signed out: the service no longer accepts that API key (revoked or expired). Sign in with a key that works.';

async function consoleFetch(request: Request): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(request);
  } catch (error) {
    // An abort is the page's own doing (a query no longer wanted), not the network's.
    if (request.signal.aborted) throw error;
    reportReachable(false);
    throw new ApiProblem(0, 'NETWORK', error instanceof Error ? error.message : 'network error');
  }
  reportReachable(true);
  if (response.status === 401 && currentSession()?.apiKey === request.headers.get('SVC-API-KEY')) {
    signOut(SIGNED_OUT_ON_401);
  }
  return response;
}

/** A client speaking with `apiKey` (the sign-in page tries a key before keeping it). */
export function clientFor(apiKey: string): EmailVerifyClient {
  return createEmailVerifyClient({ apiKey, baseUrl: window.location.origin, fetch: consoleFetch });
}

/** The client of the signed-in key. */
export function api(): EmailVerifyClient {
  const session = currentSession();
  if (!session) throw new ApiProblem(401, 'INVALID_API_KEY', 'Not signed in');
  return clientFor(session.apiKey);
}

/** An openapi-fetch reply as its `data` payload, or the error thrown as an ApiProblem. */
export async function unwrap<T>(
  reply: Promise<{ data?: { data: T }; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await reply;
  if (data !== undefined && response.ok) return data.data;
  throw problemOf(response, error);
}
