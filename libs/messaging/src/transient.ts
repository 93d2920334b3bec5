import { DomainError } from '@emailverify/contracts';
import { JetStreamApiError } from '@nats-io/jetstream';
import { errors } from '@nats-io/transport-node';

/**
 * Messages of failures to reach NATS or JetStream for a while: a server restarting (JetStream answers "no
 * responders" until it is back), a connection lost or being re-established, a deadline passed.
 */
const TRANSIENT_MESSAGES =
  /\btimeout\b|timed out|no responders|jetstream is not enabled|jetstream system temporarily unavailable|disconnect|connection (closed|lost|refused)|ECONNRESET|ECONNREFUSED/i;

/**
 * Whether a NATS or JetStream failure is one of reaching the server (a restart, a reconnect, a deadline) rather
 * than a refusal of the request itself: idempotent work that failed with it can be done again shortly. Looks
 * through `cause` chains (a stream aborted because its put timed out says so in its cause).
 */
export function isTransientMessagingError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    if (
      e instanceof errors.TimeoutError ||
      e instanceof errors.ConnectionError ||
      e instanceof errors.ClosedConnectionError ||
      e instanceof errors.DrainingConnectionError ||
      e instanceof errors.NoRespondersError ||
      (e instanceof errors.RequestError && e.isNoResponders())
    )
      return true;
    // 503: JetStream (or its meta leader) is not available yet.
    if (e instanceof JetStreamApiError && e.status === 503) return true;
    // A request to another service that found nobody, or no answer in time (see requestFailure).
    if (e instanceof DomainError && e.code === 'SERVICE_UNAVAILABLE') return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && TRANSIENT_MESSAGES.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
