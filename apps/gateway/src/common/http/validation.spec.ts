import 'reflect-metadata';
import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { DisposableDto, VerifyBulkDto, VerifyDomainDto, VerifySingleDto } from '../../verify/dto/verify.dto';
import { createValidationPipe, VALIDATION_OPTIONS } from './validation';

// The gateway's pipe takes a shortcut for plain values of simple DTOs; whatever it returns or throws must be
// exactly what class-validator and class-transformer make of the same value.

type Outcome = { ok: true; value: unknown; proto: unknown } | { ok: false; error: unknown };

async function outcome(pipe: ValidationPipe, value: unknown, metadata: ArgumentMetadata): Promise<Outcome> {
  try {
    const result: unknown = await pipe.transform(value, metadata);
    return { ok: true, value: result, proto: result && Object.getPrototypeOf(result) };
  } catch (error) {
    const { name, message, code, details } = error as Error & { code?: string; details?: unknown };
    return { ok: false, error: { name, message, code, details } };
  }
}

const query = (...pairs: [string, unknown][]): Record<string, unknown> => {
  const object = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of pairs) object[key] = value;
  return object;
};

const CASES: Array<[string, ArgumentMetadata['metatype'], ArgumentMetadata['type'], unknown]> = [
  ['disposable query', DisposableDto, 'query', query(['email', 'someone@mailinator.com'])],
  [
    'disposable query with check_smtp',
    DisposableDto,
    'query',
    query(['email', 'a@b.c'], ['check_smtp', 'true']),
  ],
  ['disposable query, repeated email', DisposableDto, 'query', query(['email', ['a@b.c', 'd@e.f']])],
  ['disposable query, no email', DisposableDto, 'query', query()],
  ['disposable query, unknown parameter', DisposableDto, 'query', query(['email', 'a@b.c'], ['x', '1'])],
  ['disposable body', DisposableDto, 'body', { email: 'a@b.c' }],
  ['disposable body, email a number', DisposableDto, 'body', { email: 5 }],
  ['disposable body, email null', DisposableDto, 'body', { email: null }],
  ['disposable body, check_smtp false', DisposableDto, 'body', { email: 'a@b.c', check_smtp: false }],
  ['disposable body, check_smtp null', DisposableDto, 'body', { email: 'a@b.c', check_smtp: null }],
  ['disposable body, nested object', DisposableDto, 'body', { email: { a: 1 } }],
  ['disposable body an array', DisposableDto, 'body', ['a@b.c']],
  ['disposable body undefined', DisposableDto, 'body', undefined],
  ['single body', VerifySingleDto, 'body', { email: 'a@b.c', check_smtp: false, force_refresh: true }],
  ['single body, email only', VerifySingleDto, 'body', { email: 'a@b.c' }],
  ['single body, check_smtp a string', VerifySingleDto, 'body', { email: 'a@b.c', check_smtp: 'false' }],
  ['single body, check_smtp null', VerifySingleDto, 'body', { email: 'a@b.c', check_smtp: null }],
  ['single body, unknown field first', VerifySingleDto, 'body', { extra: 'x', email: 7 }],
  ['bulk body', VerifyBulkDto, 'body', { emails: ['a@b.c'] }],
  ['bulk body, not strings', VerifyBulkDto, 'body', { emails: [1] }],
  ['domain query (transformed)', VerifyDomainDto, 'query', query(['domain', 'b.c'], ['check_smtp', 'true'])],
  ['domain query, no domain', VerifyDomainDto, 'query', query()],
];

describe('the validation pipe', () => {
  const gateway = createValidationPipe();
  const reference = new ValidationPipe(VALIDATION_OPTIONS);

  it.each(CASES)(
    '%s: the same DTO or the same error as class-validator',
    async (_, metatype, type, value) => {
      const metadata: ArgumentMetadata = { type, metatype, data: undefined };
      const copy = (): unknown => (value && typeof value === 'object' ? structuredCloneLoose(value) : value);
      const [ours, theirs] = [
        await outcome(gateway, copy(), metadata),
        await outcome(reference, copy(), metadata),
      ];
      expect(ours).toEqual(theirs);
      if (ours.ok && theirs.ok) {
        expect(ours.proto).toBe(theirs.proto);
        expect(Object.keys(ours.value as object)).toEqual(Object.keys(theirs.value as object));
      }
    },
  );

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

/** A copy keeping a null prototype (query objects have one), since both pipes may change what they are given. */
function structuredCloneLoose(value: object): unknown {
  if (Array.isArray(value)) return value.map((item: unknown) => item);
  const copy = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>;
  for (const [key, item] of Object.entries(value)) copy[key] = item;
  return copy;
}
