import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsOptional, IsString } from 'class-validator';

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
    deprecated: true,
  })
  @IsOptional()
  check_smtp?: unknown;
}
