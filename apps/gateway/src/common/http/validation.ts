import {
  type ArgumentMetadata,
  ValidationPipe,
  type ValidationError,
  type ValidationPipeOptions,
} from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage, validateSync } from 'class-validator';
import { DomainError } from '@emailverify/contracts';

/** class-validator on every DTO; unknown fields are refused and the first problem names its field. */
export function createValidationPipe(): ValidationPipe {
  return new GatewayValidationPipe(VALIDATION_OPTIONS);
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

type Check = (value: unknown) => boolean;
/** The class-validator rules a plan can check itself, each exactly as class-validator checks it. */
const SIMPLE_RULES: Record<string, Check> = {
  isString: (value) => typeof value === 'string' || value instanceof String,
  isBoolean: (value) => typeof value === 'boolean',
};

/** How a DTO made only of simple rules is checked without class-validator: per property, optional or not. */
interface Plan {
  properties: Map<string, { optional: boolean; checks: Check[] }>;
}

/**
 * The validation pipe, with a shortcut for what most requests send: a plain object of strings and booleans for
 * a DTO whose properties carry only @IsString, @IsBoolean and @IsOptional and no class-transformer decorator.
 * When every property passes, the DTO is built as class-transformer builds it (its prototype, the value's own
 * keys in order). Anything else, every failure included, goes through class-validator as before, so what a
 * refused request is told does not change.
 */
export class GatewayValidationPipe extends ValidationPipe {
  private readonly plans = new Map<unknown, Plan | null>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype as (new () => object) | undefined;
    if (metatype && this.toValidate(metadata)) {
      let plan = this.plans.get(metatype);
      if (plan === undefined) {
        plan = planOf(metatype);
        this.plans.set(metatype, plan);
      }
      if (plan) {
        const entity = passes(plan, metatype, value);
        if (entity) return entity;
      }
    }
    return super.transform(value, metadata);
  }
}

/** The plan of a DTO class, or null when class-validator or class-transformer must see its values. */
function planOf(metatype: new () => object): Plan | null {
  const validations = getMetadataStorage().getTargetValidationMetadatas(metatype, '', false, false);
  if (validations.length === 0) return null;
  if (
    defaultMetadataStorage.getExposedMetadatas(metatype).length > 0 ||
    defaultMetadataStorage.getExcludedMetadatas(metatype).length > 0
  ) {
    return null;
  }
  const properties: Plan['properties'] = new Map();
  for (const rule of validations) {
    const name = rule.propertyName;
    if (rule.each || (rule.groups?.length ?? 0) > 0 || rule.always) return null;
    if (
      defaultMetadataStorage.findTypeMetadata(metatype, name) ||
      defaultMetadataStorage.findTransformMetadatas(metatype, name, 0).length > 0
    ) {
      return null;
    }
    const property = properties.get(name) ?? { optional: false, checks: [] };
    properties.set(name, property);
    if (rule.type === 'conditionalValidation' && rule.name === 'isOptional') {
      property.optional = true;
      continue;
    }
    const check = rule.type === 'customValidation' && rule.name ? SIMPLE_RULES[rule.name] : undefined;
    const constraints = rule.constraintCls
      ? getMetadataStorage().getTargetValidatorConstraints(rule.constraintCls)
      : [];
    if (!check || constraints.length !== 1 || constraints[0]?.name !== rule.name || constraints[0]?.async) {
      return null;
    }
    property.checks.push(check);
  }
  return { properties };
}

/** The DTO built from `value` when it is a plain object that passes the plan; undefined otherwise. */
function passes(plan: Plan, metatype: new () => object, value: unknown): object | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return undefined;
  const given = value as Record<string, unknown>;
  const keys = Object.keys(given);
  for (const key of keys) {
    const kind = typeof given[key];
    if (!plan.properties.has(key) || (kind !== 'string' && kind !== 'boolean')) return undefined;
  }
  for (const [name, property] of plan.properties) {
    const item = given[name];
    if (item === undefined && !Object.hasOwn(given, name)) {
      if (!property.optional) return undefined;
      continue;
    }
    for (const check of property.checks) if (!check(item)) return undefined;
  }
  const entity = new metatype() as Record<string, unknown>;
  for (const key of keys) entity[key] = given[key];
  return entity;
}

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
