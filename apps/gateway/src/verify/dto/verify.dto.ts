import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { toBoolean } from '../../common/http/query-values';

export class VerifySingleDto {
  @ApiProperty({ description: 'Address to verify', example: 'jane.doe@example.com' })
  @IsString()
  email!: string;

  @ApiPropertyOptional({
    description: 'Run a live SMTP mailbox check; when false no SMTP connection is made',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  check_smtp?: boolean;

  @ApiPropertyOptional({
    description: 'Bypass the cache; costs a credit even when a cached result exists',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  force_refresh?: boolean;
}

export class VerifyBulkDto {
  @ApiProperty({
    description: 'Addresses to verify (1 to BULK_MAX_EMAILS, default 100)',
    type: [String],
    example: ['jane.doe@example.com', 'info@example.org'],
  })
  @IsArray()
  @IsString({ each: true })
  emails!: string[];

  @ApiPropertyOptional({ description: 'Run a live SMTP mailbox check for each address', default: false })
  @IsOptional()
  @IsBoolean()
  check_smtp?: boolean;
}

/** Body of POST and query of GET /verify/disposable. `check_smtp` is accepted only to refuse it clearly. */
export class DisposableDto {
  @ApiProperty({ description: 'Address whose domain is checked', example: 'someone@mailinator.com' })
  @IsString()
  email!: string;

  @ApiPropertyOptional({
    description: 'Not supported on this endpoint: sending it is an error',
    type: 'boolean',
    deprecated: true,
  })
  @IsOptional()
  check_smtp?: unknown;
}

/** Query of GET /verify/domain. The domain's syntax is checked by the service (INVALID_REQUEST naming `domain`). */
export class VerifyDomainDto {
  @ApiProperty({
    description:
      'Domain to report on, without a local part; an internationalised name is turned into punycode',
    example: 'example.com',
  })
  @MaxLength(1024)
  // Last, so it is checked first: a missing or repeated parameter is named as such.
  @IsString()
  domain!: string;

  @ApiPropertyOptional({
    description:
      'Probe the mail hosts over SMTP with a random local part for the catch-all verdict; when false no SMTP connection is made',
    default: false,
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  check_smtp?: boolean;
}
