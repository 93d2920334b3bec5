import { DomainError } from '@emailverify/contracts';
import { errors } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { isTransientMessagingError } from './transient';

describe('isTransientMessagingError', () => {
  it('is true for a server that cannot be reached for a while, also as the cause of another failure', () => {
    for (const err of [
      new errors.TimeoutError(),
      new errors.NoRespondersError('x'),
      new errors.ClosedConnectionError(),
      new Error('jetstream is not enabled'),
      new Error('CsvWriter: the stream was aborted', { cause: new errors.TimeoutError() }),
      new DomainError('SERVICE_UNAVAILABLE', 'The credits service did not answer within 5000 ms'),
    ])
      expect(isTransientMessagingError(err), String(err)).toBe(true);
  });

  it('is false for a refusal or a fault of the work itself', () => {
    for (const err of [
      new Error('job 1: the file held 3 addresses, the job 4'),
      new DomainError('INSUFFICIENT_CREDITS', 'Not enough credits'),
      new errors.PermissionViolationError('Permissions Violation for Publish to "x"', 'publish', 'x'),
      undefined,
    ])
      expect(isTransientMessagingError(err), String(err)).toBe(false);
  });
});
