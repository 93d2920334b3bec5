import 'reflect-metadata';
import type { ArgumentMetadata } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { DisposableDto, VerifyBulkDto, VerifyDomainDto, VerifySingleDto } from '../../verify/dto/verify.dto';
import { createValidationPipe } from './validation';

// Nest's ValidationPipe with the gateway's options: what a handler is given, and what a refused request is told.

const query = (...pairs: [string, unknown][]): Record<string, unknown> => {
  const object = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of pairs) object[key] = value;
  return object;
};

const REFUSED: Array<[string, ArgumentMetadata['metatype'], ArgumentMetadata['type'], unknown, string]> = [
  ['disposable query, repeated email', DisposableDto, 'query', query(['email', ['a@b.c', 'd@e.f']]), 'email'],
  ['disposable query, no email', DisposableDto, 'query', query(), 'email'],
  ['disposable query, unknown parameter', DisposableDto, 'query', query(['email', 'a@b.c'], ['x', '1']), 'x'],
  ['disposable body, email a number', DisposableDto, 'body', { email: 5 }, 'email'],
  ['disposable body, email null', DisposableDto, 'body', { email: null }, 'email'],
  ['disposable body, nested object', DisposableDto, 'body', { email: { a: 1 } }, 'email'],
  [
    'single body, check_smtp a string',
    VerifySingleDto,
    'body',
    { email: 'a@b.c', check_smtp: 'false' },
    'check_smtp',
  ],
  ['single body, no email', VerifySingleDto, 'body', { check_smtp: false }, 'email'],
  ['bulk body, not strings', VerifyBulkDto, 'body', { emails: [1] }, 'emails'],
  ['domain query, no domain', VerifyDomainDto, 'query', query(), 'domain'],
];

describe('the validation pipe', () => {
  const gateway = createValidationPipe();

  it.each(REFUSED)(
    '%s: refused as INVALID_REQUEST naming the field',
    async (_, metatype, type, value, field) => {
      await expect(gateway.transform(value, { type, metatype, data: undefined })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        details: { field },
      });
    },
  );

  it('gives the handler a DTO with the fields sent, and only those', async () => {
    const dto = await gateway.transform(
      { email: 'a@b.c', check_smtp: false, force_refresh: true },
      { type: 'body', metatype: VerifySingleDto },
    );
    expect(dto).toBeInstanceOf(VerifySingleDto);
    expect(dto).toEqual({ email: 'a@b.c', check_smtp: false, force_refresh: true });
  });

  it('gives the handler a DTO of the route’s class for a plain query', async () => {
    const dto = await gateway.transform(query(['email', 'someone@mailinator.com']), {
      type: 'query',
      metatype: DisposableDto,
    });
    expect(dto).toBeInstanceOf(DisposableDto);
    expect(dto).toEqual({ email: 'someone@mailinator.com' });
  });

  it('refuses an unknown parameter as class-validator does, naming it', async () => {
    await expect(
      gateway.transform(query(['email', 'a@b.c'], ['emial', 'x']), {
        type: 'query',
        metatype: DisposableDto,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'emial: property emial should not exist',
      details: { field: 'emial' },
    });
  });
});
