import { ValidationPipe, type ValidationError, type ValidationPipeOptions } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DomainError } from '@emailverify/contracts';

/**
 * class-validator on every DTO; unknown fields are refused and the first problem names its field. Nest's own
 * pipe: a shortcut past class-validator for simple DTOs (read through class-transformer's internal metadata
 * store) showed no gain at the gateway's load (docs/performance.md, "validation fast path").
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe(VALIDATION_OPTIONS);
}

/** The validation pipe's options. */
export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  validationError: { target: false, value: false },
  exceptionFactory: (errors: ValidationError[]) => {
    const [field, message] = firstProblem(errors);
    return new DomainError('INVALID_REQUEST', message, { field });
  },
};

function firstProblem(errors: ValidationError[], prefix = ''): [string, string] {
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const constraints = Object.values(error.constraints ?? {});
    if (constraints.length > 0) {
      const text = constraints[0] ?? 'is invalid';
      return [
        path,
        text.startsWith(error.property) ? text.replace(error.property, path) : `${path}: ${text}`,
      ];
    }
    if (error.children?.length) return firstProblem(error.children, path);
  }
  return ['body', 'The request body is invalid'];
}

/** The same validation as the pipe, for values the handler reads itself (multipart fields after the upload). */
export function validateDto<T extends object>(cls: new () => T, plain: unknown): T {
  const instance = plainToInstance(cls, plain ?? {});
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) {
    const [field, message] = firstProblem(errors);
    throw new DomainError('INVALID_REQUEST', message, { field });
  }
  return instance;
}
