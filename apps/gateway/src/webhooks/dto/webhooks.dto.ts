import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { DELIVERY_PAGE, WEBHOOK_EVENTS } from '@emailverify/contracts';
import { IsArray, IsBoolean, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { PageLimit } from '../../common/http/query-values';

/** Longest webhook URL accepted (the shape check; https, host and credentials are the webhooks service's). */
const WEBHOOK_URL_MAX_LENGTH = 2048;

/** Longest delivery-log cursor accepted (as the webhooks service does); real cursors are far shorter. */
const CURSOR_MAX_LENGTH = 500;

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
  @PageLimit(DELIVERY_PAGE)
  limit?: number;

  @ApiPropertyOptional({ description: "The previous page's `next_cursor`; omit for the newest deliveries" })
  @IsOptional()
  @IsString()
  @MaxLength(CURSOR_MAX_LENGTH)
  cursor?: string;
}
