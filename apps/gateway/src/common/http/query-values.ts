import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Form and query values arrive as strings: "true"/"1" and "false"/"0" become booleans, anything else stays and fails. */
export const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (value === 'true' || value === '1' || value === true) return true;
  if (value === 'false' || value === '0' || value === false) return false;
  return value;
};

/**
 * Query values arrive as strings: only plain decimal digits become a number ("1.5", "1e1", "0x10", " 5" and
 * repeated parameters stay as they are and fail the integer check).
 */
export const toStrictInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value;

/**
 * The `limit` of a paged list: a whole number from `page.min` to `page.max` (`page.default` when left out), with
 * one message for whatever is wrong with it.
 */
export const PageLimit = (page: { min: number; max: number; default: number }, description = 'Page size') => {
  const message = `limit must be a whole number from ${page.min} to ${page.max}`;
  return applyDecorators(
    ApiPropertyOptional({
      description,
      type: 'integer',
      minimum: page.min,
      maximum: page.max,
      default: page.default,
    }),
    IsOptional(),
    Transform(toStrictInt),
    IsInt({ message }),
    Min(page.min, { message }),
    Max(page.max, { message }),
  );
};
