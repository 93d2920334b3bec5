import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { LEDGER_PAGE, USAGE_DEFAULT_DAYS, USAGE_RANGE_MAX_DAYS } from '@emailverify/contracts';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageLimit } from '../../common/http/query-values';

/** Longer than any date or date-time; the shape is checked by the service (date-range.ts). */
const DATE_MAX_LENGTH = 40;

/**
 * One end of a date range (`from`, `to`). Listed in the order they take effect, as stacked decorators would from
 * the bottom up: the length is checked before the type, so a repeated parameter is named by its length.
 */
const DateBound = (description: string, example: string) =>
  applyDecorators(
    MaxLength(DATE_MAX_LENGTH),
    IsString(),
    IsOptional(),
    ApiPropertyOptional({ description, example }),
  );

/** Query of GET /credits/ledger. */
export class LedgerQueryDto {
  @PageLimit(LEDGER_PAGE)
  limit?: number;

  @ApiPropertyOptional({ description: "The previous page's `next_cursor`; omit for the newest entries" })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @DateBound('Entries at or after: a date (2026-11-01, UTC) or a date-time with a time zone', '2026-11-01')
  from?: string;

  @DateBound(
    `Entries before a date-time, or up to the end of a date (UTC); at most ${USAGE_RANGE_MAX_DAYS} days after from`,
    '2026-11-30',
  )
  to?: string;
}

/** Query of GET /credits/usage. */
export class UsageQueryDto {
  @DateBound(`First day (YYYY-MM-DD, UTC); default ${USAGE_DEFAULT_DAYS - 1} days before to`, '2026-11-01')
  from?: string;

  @DateBound(
    `Last day (YYYY-MM-DD, UTC), included; default today; at most ${USAGE_RANGE_MAX_DAYS} days from from`,
    '2026-11-30',
  )
  to?: string;

  @ApiPropertyOptional({ description: 'The only granularity is a day', enum: ['day'], default: 'day' })
  @IsOptional()
  @IsIn(['day'], { message: 'granularity must be day' })
  granularity?: 'day';
}
