import { describe, expect, it } from 'vitest';
import { DomainError, ERROR_CATALOGUE, isErrorCode } from './errors';

describe('error catalogue', () => {
  it('answers INSUFFICIENT_CREDITS with 402 in the current style and 403 in the legacy style', () => {
    expect(ERROR_CATALOGUE.INSUFFICIENT_CREDITS).toMatchObject({
      numericCode: '4020',
      httpStatus: 402,
      legacyHttpStatus: 403,
    });
  });

  it('recognises only catalogued codes', () => {
    expect(isErrorCode('JOB_NOT_FOUND')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(new DomainError('INVALID_EMAIL', 'bad').toBody()).toEqual({
      code: 'INVALID_EMAIL',
      message: 'bad',
    });
  });
});
