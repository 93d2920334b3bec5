import { DomainError, type ErrorBody, isErrorCode } from '@emailverify/contracts';
import { errors } from '@nats-io/transport-node';

/** Which service answers a subject, for messages a person can act on ("the credits service is not answering"). */
function serviceOf(subject: string): string {
  return subject.split('.')[0] ?? subject;
}

/**
 * Maps a failed NATS request to the error a caller sees: nobody subscribed, or nobody answered within the
 * deadline, are both "service unavailable" (HTTP 503, code 1000), never a hang.
 */
export function requestFailure(subject: string, timeoutMs: number, err: unknown): DomainError {
  const service = serviceOf(subject);
  if (
    (err instanceof errors.RequestError && err.isNoResponders()) ||
    err instanceof errors.NoRespondersError
  ) {
    return new DomainError(
      'SERVICE_UNAVAILABLE',
      `The ${service} service is not available; try again shortly`,
      {
        cause: 'no_responders',
      },
    );
  }
  if (
    err instanceof errors.TimeoutError ||
    (err instanceof errors.RequestError && err.cause instanceof errors.TimeoutError)
  ) {
    return new DomainError(
      'SERVICE_UNAVAILABLE',
      `The ${service} service did not answer within ${timeoutMs} ms`,
      {
        cause: 'timeout',
      },
    );
  }
  if (err instanceof errors.ClosedConnectionError || err instanceof errors.DrainingConnectionError) {
    return new DomainError('SERVICE_UNAVAILABLE', 'The message bus connection is closing');
  }
  return new DomainError('SERVICE_UNAVAILABLE', `The ${service} service could not be reached`);
}

/** Rebuilds a DomainError from an error reply; an unrecognised code becomes an internal error. */
export function fromErrorBody(body: ErrorBody): DomainError {
  if (isErrorCode(body.code)) return new DomainError(body.code, body.message, body.details);
  return new DomainError('INTERNAL_ERROR', body.message);
}
