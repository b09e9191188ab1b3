import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

/** `POST /webhook-endpoints/:uuid/test`: which event to send, and its data (an example when left out). */
export class TestEventDto {
  @ApiPropertyOptional({
    description: 'An event name from the catalog (GET /int/v1/webhook-events). Default: order.updated.',
    example: 'order.updated',
    maxLength: 128,
  })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  event?: string;

  @ApiPropertyOptional({
    description:
      'The envelope’s data. Default: the catalog’s example for the event; for order.updated {id, status}.',
    type: 'object',
    additionalProperties: true,
    example: { id: '3f1c9e5a-2b7d-4c8e-9a6f-1d2e3f4a5b6c', status: 'dispatched' },
  })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}
