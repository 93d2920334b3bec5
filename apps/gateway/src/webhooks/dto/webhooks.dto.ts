import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { DELIVERY_PAGE, WEBHOOK_EVENTS } from '@emailverify/contracts';
import { Transform } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

/** Longest webhook URL accepted (the shape check; https, host and credentials are the webhooks service's). */
const WEBHOOK_URL_MAX_LENGTH = 2048;

/** Longest delivery-log cursor accepted (as the webhooks service does); real cursors are far shorter. */
const CURSOR_MAX_LENGTH = 500;

/**
 * Query values arrive as strings: only plain decimal digits become a number ("1.5", "1e1", "0x10", " 5" and
 * repeated parameters stay as they are and fail the integer check).
 */
const toStrictInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value;

const urlDoc: ApiPropertyOptions = {
  description: `HTTPS address that receives the notifications (at most ${WEBHOOK_URL_MAX_LENGTH} characters, no user name or password, not a private IP address)`,
  example: 'https://hooks.example.com/emailverify',
  maxLength: WEBHOOK_URL_MAX_LENGTH,
};
const eventsDoc: ApiPropertyOptions = {
  description: 'Events to receive: a non-empty list of supported event names',
  type: 'string',
  isArray: true,
  enum: [...WEBHOOK_EVENTS],
  example: ['file.completed', 'file.failed'],
};
const limitMessage = `limit must be a whole number from ${DELIVERY_PAGE.min} to ${DELIVERY_PAGE.max}`;

/** Body of POST /webhooks. The DTO checks shape; the webhooks service checks meaning (https, events, limit). */
export class CreateWebhookDto {
  @ApiProperty(urlDoc)
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url!: string;

  @ApiProperty(eventsDoc)
  @IsArray()
  @IsString({ each: true })
  events!: string[];
}

/** A PATCH field may be left out, but not sent as null. */
const unlessOmitted = ValidateIf((_dto: object, value: unknown) => value !== undefined);

/** Body of PATCH /webhooks/{webhook_id}: any of the three fields (the webhooks service asks for at least one). */
export class UpdateWebhookDto {
  @ApiPropertyOptional(urlDoc)
  @unlessOmitted
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional(eventsDoc)
  @unlessOmitted
  @IsArray()
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({
    description: 'false stops deliveries; true re-activates a webhook (also one deactivated after failures)',
    example: true,
  })
  @unlessOmitted
  @IsBoolean()
  is_active?: boolean;
}

/** Query of GET /webhooks/{webhook_id}/deliveries. */
export class DeliveryListQueryDto {
  @ApiPropertyOptional({
    description: 'Page size',
    type: 'integer',
    minimum: DELIVERY_PAGE.min,
    maximum: DELIVERY_PAGE.max,
    default: DELIVERY_PAGE.default,
  })
  @IsOptional()
  @Transform(toStrictInt)
  @IsInt({ message: limitMessage })
  @Min(DELIVERY_PAGE.min, { message: limitMessage })
  @Max(DELIVERY_PAGE.max, { message: limitMessage })
  limit?: number;

  @ApiPropertyOptional({ description: "The previous page's `next_cursor`; omit for the newest deliveries" })
  @IsOptional()
  @IsString()
  @MaxLength(CURSOR_MAX_LENGTH)
  cursor?: string;
}
