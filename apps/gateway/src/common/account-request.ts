import type { RpcReply, RpcRequest, RpcSubject } from '@emailverify/contracts';
import type { MessageBus } from '@emailverify/messaging';
import type { AuthContext } from './http/request-context';

/**
 * A request to a service on the authenticated caller's behalf: the caller's account is added to the payload,
 * and the message carries the request's id (X-Request-Id).
 */
export function askForAccount<S extends RpcSubject>(
  bus: MessageBus,
  auth: AuthContext,
  subject: S,
  payload: Omit<RpcRequest<S>, 'accountId'>,
  options: { timeoutMs?: number } = {},
): Promise<RpcReply<S>> {
  // The spread is the request of S whole; TypeScript does not follow Omit through the generic.
  const request = { accountId: auth.accountId, ...payload } as RpcRequest<S>;
  return bus.request(subject, request, { requestId: auth.requestId, ...options });
}
