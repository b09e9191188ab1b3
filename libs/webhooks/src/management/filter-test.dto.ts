import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches } from 'class-validator';
import { EVENT_ID } from '../outbox/event-id';

/** `POST /webhook-endpoints/:uuid/filter-test`: the event to try (given, or stored), and a draft filter. */
export class FilterTestDto {
  @ApiPropertyOptional({
    description: 'An envelope to try ({event, data: {…}}), as an endpoint would receive it.',
    type: 'object',
    additionalProperties: true,
    example: { event: 'order.updated', data: { id: 'ord_1', status: 'completed' } },
  })
  @IsOptional()
  @IsObject()
  event?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: 'A stored event of the company, by its envelope id.',
    example: 'evt_…',
  })
  @IsOptional()
  @IsString()
  @Matches(EVENT_ID)
  event_id?: string;

  @ApiPropertyOptional({
    description: "A draft filter to try instead of the endpoint's own (checked as a save would check it).",
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;
}
