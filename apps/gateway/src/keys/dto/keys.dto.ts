import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { KEY_SCOPES } from '@emailverify/contracts';
import { IsBoolean, IsIn, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';

/** Longest key name accepted. */
export const KEY_NAME_MAX_LENGTH = 100;

/** A field that may be left out, but not sent as null. */
const unlessOmitted = ValidateIf((_dto: object, value: unknown) => value !== undefined);

/** Body of POST /keys. The DTO checks shape; the keys service checks the expiry and what the caller may make. */
export class CreateKeyDto {
  @ApiProperty({
    description: `A name to tell the key apart (1-${KEY_NAME_MAX_LENGTH} printable characters)`,
    example: 'staging server',
    maxLength: KEY_NAME_MAX_LENGTH,
  })
  @IsString()
  @MaxLength(KEY_NAME_MAX_LENGTH)
  @Matches(/^(?=.*\S)[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u, {
    message: 'name must hold printable characters, not only spaces',
  })
  name!: string;

  @ApiPropertyOptional({
    description:
      'true makes a sandbox key (`ev_test_...`): canned answers, no charge. A sandbox key makes sandbox keys only.',
    default: false,
  })
  @unlessOmitted
  @IsBoolean()
  sandbox?: boolean;

  @ApiPropertyOptional({
    description: '`verify`: verification endpoints and credits only (no keys or webhooks management)',
    enum: [...KEY_SCOPES],
    default: 'full',
  })
  @unlessOmitted
  @IsIn([...KEY_SCOPES], { message: `scope must be one of: ${KEY_SCOPES.join(', ')}` })
  scope?: (typeof KEY_SCOPES)[number];

  @ApiPropertyOptional({
    description: 'When the key stops working (ISO 8601 with a time zone), in the future, within 10 years',
    example: '2027-06-30T00:00:00Z',
  })
  @unlessOmitted
  @IsString()
  @MaxLength(40)
  expires_at?: string;
}
