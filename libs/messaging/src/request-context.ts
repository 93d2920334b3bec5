import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request id of the work in progress. A message handler (request/reply or JetStream) runs inside the id its
 * message carried, so every request, publication and log line that work causes names the request that caused
 * it, without each call site handing it on.
 */
const storage = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `work` (and everything it starts) as part of the request `requestId`. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/** The request id of the work in progress, when there is one. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
