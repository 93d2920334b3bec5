import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  FILE_JOB_CURSOR_MAX_LENGTH,
  FILE_JOB_LIST_DEFAULT_LIMIT,
  FILE_JOB_LIST_MAX_LIMIT,
  JOB_STATES,
} from '@emailverify/contracts';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { toBoolean } from '../../common/http/query-values';

/**
 * A query value as a whole number: only plain decimal digits become a number; anything else (`0x10`, `1e2`,
 * `300.0`, an empty value, a repeated parameter) stays as given and fails validation.
 */
const toWholeNumber = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;

/** What the upload's `enrich` field does, in both OpenAPI documents. */
export const ENRICH_DESCRIPTION =
  'Look up Gravatar (per address) and the domain age (RDAP, per domain) for every deliverable address, and add ' +
  'the has_gravatar and domain_age columns to the result file. Each Gravatar request sends a hash of the address ' +
  'to a third party; without enrich none is made. Credits are as without it; the job takes longer.';

/** The form fields of POST /verify/file besides the file itself. */
export class UploadFieldsDto {
  @ApiPropertyOptional({
    description: 'Column holding the addresses (case-insensitive); auto-detected when omitted',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  email_column?: string;

  @ApiPropertyOptional({ description: 'Live SMTP verification of every address', default: false })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  check_smtp?: boolean;

  @ApiPropertyOptional({ description: 'Keep the original columns in the result file', default: true })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  preserve_original?: boolean;

  @ApiPropertyOptional({ description: ENRICH_DESCRIPTION, default: false })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  enrich?: boolean;
}

export class StatusQueryDto {
  @ApiPropertyOptional({
    description: 'Long-poll: wait up to this many seconds for the job to finish',
    minimum: 0,
    maximum: 300,
    default: 0,
  })
  @IsOptional()
  @Transform(toWholeNumber)
  @IsInt({ message: 'timeout must be a whole number of seconds from 0 to 300' })
  @Min(0, { message: 'timeout must be a whole number of seconds from 0 to 300' })
  @Max(300, { message: 'timeout must be a whole number of seconds from 0 to 300' })
  timeout?: number;
}

export const RESULT_FILTERS = [
  'valid',
  'invalid',
  'risky',
  'unknown',
  'catchall',
  'role',
  'disposable',
] as const;
export type ResultFilter = (typeof RESULT_FILTERS)[number];

/** One status filter of the results query: "true"/"1" includes the status, "false"/"0" leaves it out. */
const Filter = (label: string) =>
  applyDecorators(
    ApiPropertyOptional({ description: `Include ${label} addresses` }),
    IsOptional(),
    Transform(toBoolean),
    IsBoolean(),
  );

/** What `partial` of the results query does, in both OpenAPI documents. */
export const PARTIAL_DESCRIPTION =
  'While the job is still under way: a CSV of the rows verified so far (200, never a redirect), the longest run ' +
  'of input rows from the top whose results are all in, with the columns and filters of the final file, so it ' +
  'is always a prefix of it. A job that has ended answers as without partial.';

export class ResultsQueryDto implements Partial<Record<ResultFilter, boolean>> {
  @Filter('valid') valid?: boolean;
  @Filter('invalid') invalid?: boolean;
  @Filter('risky') risky?: boolean;
  @Filter('unknown') unknown?: boolean;
  @Filter('catch-all') catchall?: boolean;
  @Filter('role') role?: boolean;
  @Filter('disposable') disposable?: boolean;

  @ApiPropertyOptional({ description: PARTIAL_DESCRIPTION, default: false })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  partial?: boolean;
}

const STATE_LIST = new RegExp(`^(${JOB_STATES.join('|')})(,(${JOB_STATES.join('|')}))*$`);
const STATUS_MESSAGE = `status must be one or more job states, comma-separated: ${JOB_STATES.join(', ')}`;
const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${FILE_JOB_LIST_MAX_LIMIT}`;
const CURSOR_MESSAGE = 'cursor is not valid: pass the next_cursor of the previous page unchanged';

/** GET /verify/file: which of the account's jobs, how many, and from where. */
export class ListQueryDto {
  @ApiPropertyOptional({
    description: `Only jobs in these states (comma-separated): ${JOB_STATES.join(', ')}`,
    example: 'completed,completed_with_warning',
  })
  @IsOptional()
  @IsString({ message: STATUS_MESSAGE })
  @Matches(STATE_LIST, { message: STATUS_MESSAGE })
  status?: string;

  @ApiPropertyOptional({
    description: 'Jobs per page',
    type: 'integer',
    minimum: 1,
    maximum: FILE_JOB_LIST_MAX_LIMIT,
    default: FILE_JOB_LIST_DEFAULT_LIMIT,
  })
  @IsOptional()
  @Transform(toWholeNumber)
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(FILE_JOB_LIST_MAX_LIMIT, { message: LIMIT_MESSAGE })
  limit?: number;

  @ApiPropertyOptional({
    description: 'The next_cursor of the previous page, unchanged; the first page without it',
    maxLength: FILE_JOB_CURSOR_MAX_LENGTH,
  })
  @IsOptional()
  @IsString({ message: CURSOR_MESSAGE })
  @Matches(/^[A-Za-z0-9_-]+$/, { message: CURSOR_MESSAGE })
  @MaxLength(FILE_JOB_CURSOR_MAX_LENGTH, { message: CURSOR_MESSAGE })
  cursor?: string;
}

export class DownloadQueryDto {
  @ApiPropertyOptional({ description: 'Expiry of the signed link (Unix seconds)' })
  @IsString()
  expires!: string;
  @ApiPropertyOptional({ description: 'HMAC-SHA256 signature of the link' }) @IsString() signature!: string;
}
