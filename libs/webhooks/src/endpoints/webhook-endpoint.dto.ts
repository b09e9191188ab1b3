import {
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  ValidateIf,
  MaxLength,
  Min,
} from 'class-validator';
import { DESTINATION_TYPE_NAMES } from '../destinations/destination-types';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'];
export const ENDPOINT_ORDERINGS = ['none', 'entity'];
/** `full`: the record in every delivery; `thin`: a reference to it (its id, resource and URL). */
export const ENDPOINT_PAYLOADS = ['full', 'thin'];
export const MAX_IN_FLIGHT_LIMIT = 100;
export const RATE_LIMIT_PER_SECOND_LIMIT = 10_000;

/** The writable fields of a webhook endpoint; `url` and `events` are also checked by WebhookEndpointHooks. */
export class WebhookEndpointDto {
  /** Required for an http endpoint (WebhookEndpointHooks); a broker endpoint's is its config.url. */
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @MaxLength(2048)
  url?: string;
  /** Where deliveries go: `http` (the default) or a broker type of GET /int/v1/destination-types. */
  @IsOptional() @IsIn(DESTINATION_TYPE_NAMES) type?: string;
  /** The type's config (its JSON Schema at GET /int/v1/destination-types); checked and sealed by the hooks. */
  @IsOptional() @IsObject() config?: Record<string, unknown> | null;
  @IsOptional() @IsString() @MaxLength(10_000) description?: string | null;
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  events?: string[];
  @IsOptional() @IsIn(ENDPOINT_STATUSES) status?: string;
  /** Defaults to WEBHOOKS_ENDPOINT_CONCURRENCY; null is refused by WebhookEndpointHooks. */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_IN_FLIGHT_LIMIT) max_in_flight?: number;
  @IsOptional() @IsInt() @Min(1) @Max(RATE_LIMIT_PER_SECOND_LIMIT) rate_limit_per_second?: number | null;
  /** null is refused by WebhookEndpointHooks. */
  @IsOptional() @IsIn(ENDPOINT_ORDERINGS) ordering?: string;
  /** null is refused by WebhookEndpointHooks. */
  @IsOptional() @IsIn(ENDPOINT_PAYLOADS) payload?: string;
  /** Compiled and checked by WebhookEndpointHooks; null (or {}) receives every subscribed event. */
  @IsOptional() @IsObject() filter?: Record<string, unknown> | null;
  /** Up to 20 static headers; checked and sealed by WebhookEndpointHooks (endpoint-credentials.ts). */
  @IsOptional() @IsObject() headers?: Record<string, string> | null;
  /** {type: none | basic | bearer | oauth2_client_credentials, …}; checked and sealed likewise. */
  @IsOptional() @IsObject() auth?: Record<string, unknown> | null;
  /** Send each attempt's W3C `traceparent` header to the receiver (tracing on); false by default. */
  @ValidateIf((_, value) => value !== undefined)
  @IsBoolean()
  propagate_trace?: boolean;
}
