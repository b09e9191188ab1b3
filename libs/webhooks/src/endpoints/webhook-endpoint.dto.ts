import { ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'];

/** The writable fields of a webhook endpoint; `url` and `events` are also checked by WebhookEndpointHooks. */
export class WebhookEndpointDto {
  @IsString() @MaxLength(2048) url: string;
  @IsOptional() @IsString() @MaxLength(10_000) description?: string | null;
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  events?: string[];
  @IsOptional() @IsIn(ENDPOINT_STATUSES) status?: string;
}
