import { ApiPropertyOptional } from '@nestjs/swagger';
import { LEDGER_PAGE, USAGE_DEFAULT_DAYS, USAGE_RANGE_MAX_DAYS } from '@emailverify/contracts';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/**
 * Query values arrive as strings: only plain decimal digits become a number ("1.5", "1e1", "0x10", " 5" and
 * repeated parameters stay as they are and fail the integer check).
 */
const toStrictInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value;

const limitMessage = `limit must be a whole number from ${LEDGER_PAGE.min} to ${LEDGER_PAGE.max}`;
/** Longer than any date or date-time; the shape is checked by the service (date-range.ts). */
const DATE_MAX_LENGTH = 40;

/** Query of GET /credits/ledger. */
export class LedgerQueryDto {
  @ApiPropertyOptional({
    description: 'Page size',
    type: 'integer',
    minimum: LEDGER_PAGE.min,
    maximum: LEDGER_PAGE.max,
    default: LEDGER_PAGE.default,
  })
  @IsOptional()
  @Transform(toStrictInt)
  @IsInt({ message: limitMessage })
  @Min(LEDGER_PAGE.min, { message: limitMessage })
  @Max(LEDGER_PAGE.max, { message: limitMessage })
  limit?: number;

  @ApiPropertyOptional({ description: "The previous page's `next_cursor`; omit for the newest entries" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @ApiPropertyOptional({
    description: 'Entries at or after: a date (2026-11-01, UTC) or a date-time with a time zone',
    example: '2026-11-01',
  })
  @IsOptional()
  @IsString()
  @MaxLength(DATE_MAX_LENGTH)
  from?: string;

  @ApiPropertyOptional({
    description: `Entries before a date-time, or up to the end of a date (UTC); at most ${USAGE_RANGE_MAX_DAYS} days after from`,
    example: '2026-11-30',
  })
  @IsOptional()
  @IsString()
  @MaxLength(DATE_MAX_LENGTH)
  to?: string;
}

/** Query of GET /credits/usage. */
export class UsageQueryDto {
  @ApiPropertyOptional({
    description: `First day (YYYY-MM-DD, UTC); default ${USAGE_DEFAULT_DAYS - 1} days before to`,
    example: '2026-11-01',
  })
  @IsOptional()
  @IsString()
  @MaxLength(DATE_MAX_LENGTH)
  from?: string;

  @ApiPropertyOptional({
    description: `Last day (YYYY-MM-DD, UTC), included; default today; at most ${USAGE_RANGE_MAX_DAYS} days from from`,
    example: '2026-11-30',
  })
  @IsOptional()
  @IsString()
  @MaxLength(DATE_MAX_LENGTH)
  to?: string;

  @ApiPropertyOptional({ description: 'The only granularity is a day', enum: ['day'], default: 'day' })
  @IsOptional()
  @IsIn(['day'], { message: 'granularity must be day' })
  granularity?: 'day';
}
