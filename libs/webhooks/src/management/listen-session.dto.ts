import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ENTRY_ID } from '../destinations/listen-entry';
import { ENDPOINT_PAYLOADS } from '../endpoints/webhook-endpoint.dto';
import { MAX_LOGGED_BODY } from '../tuning';

/** `POST /listen-sessions`: where the CLI forwards, and the subscription of the session's endpoint. */
export class ListenSessionDto {
  @ApiProperty({
    description:
      'The local URL the CLI forwards each delivery to (shown in the request log; the api never dials it).',
    example: 'http://localhost:4242/webhook',
    maxLength: 2048,
  })
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  @MaxLength(2048)
  forward_to: string;

  @ApiPropertyOptional({
    description: 'Event names from GET /int/v1/webhook-events, or "*" (default): every data event.',
    type: [String],
    example: ['order.created', 'warehouse.created'],
  })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({
    description: 'full (default) or thin, as for an endpoint.',
    enum: ENDPOINT_PAYLOADS,
  })
  @IsOptional()
  @IsIn(ENDPOINT_PAYLOADS)
  payload?: string;

  @ApiPropertyOptional({
    description: 'A payload filter, as for an endpoint (docs/webhooks.md#filtering-by-payload).',
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;
}

/** `POST /listen-sessions/:uuid/answers`: what the local URL answered to one delivery of the stream. */
export class ListenAnswerDto {
  @ApiProperty({ description: 'The id of the stream event answered.', example: '1795830529123-0' })
  @IsString()
  @Matches(ENTRY_ID, { message: 'id must be the id of an event of the stream' })
  id: string;

  @ApiPropertyOptional({ description: 'The HTTP status; absent when the forward failed.', example: 200 })
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(599)
  status?: number;

  @ApiPropertyOptional({
    description: 'The answer’s headers.',
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;

  @ApiPropertyOptional({ description: 'The answer’s body (its start).', maxLength: MAX_LOGGED_BODY })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_LOGGED_BODY)
  body?: string;

  @ApiPropertyOptional({ description: 'How long the forward took, in ms.', example: 12 })
  @IsOptional()
  @IsInt()
  @Min(0)
  duration_ms?: number;

  @ApiPropertyOptional({
    description: 'Why the forward got no answer (connection refused, timeout).',
    maxLength: 1024,
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  error?: string;
}

/** `POST /webhook-events/:event/trigger`: the event's data (the catalog's example when left out). */
export class TriggerEventDto {
  @ApiPropertyOptional({
    description: 'The envelope’s data. Default: the catalog’s example for the event.',
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}
