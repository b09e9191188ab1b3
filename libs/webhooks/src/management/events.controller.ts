import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Permission } from '@wharf/core';
import { DEFAULT_LIMIT } from './events-query';
import { EVENT_SCHEMA, EVENTS_PAGE_SCHEMA } from './events.schema';
import { EventsService } from './events.service';

const query = (name: string, description: string, schema: object = { type: 'string' }) =>
  ApiQuery({ name, required: false, description, schema });

/** `GET /int/v1/events` and `GET /int/v1/events/:event_id`: what happened, for a receiver to catch up. */
@ApiTags('events')
@Permission('events:read')
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'The company’s events, newest first',
    description:
      'Every event of the company while the outbox keeps it (`WEBHOOKS_EVENT_RETENTION_DAYS`), as a full ' +
      'envelope. Page with `meta.next_cursor`. `delivery_success=false`: the events with a delivery that ' +
      'failed or is still retrying (to `webhook_endpoint_uuid`, when given): what a receiver missed.',
  })
  @query('limit', `Events per page, 1–100 (default ${DEFAULT_LIMIT}).`, {
    type: 'integer',
    minimum: 1,
    maximum: 100,
  })
  @query('cursor', 'The `meta.next_cursor` of the previous page.')
  @query('event', 'Only events of this name.', { type: 'string', example: 'warehouse.created' })
  @query('event_in', 'Only events of these names, comma-separated.')
  @query('data_id', 'Only events about this record (`data.id`, its uuid).')
  @query('created_at_gte', 'Only events created at or after this time.', {
    type: 'string',
    format: 'date-time',
  })
  @query('created_at_lte', 'Only events created at or before this time.', {
    type: 'string',
    format: 'date-time',
  })
  @query(
    'delivery_success',
    '`false`: only events with a delivery that failed or is retrying; `true`: only those without.',
    {
      type: 'string',
      enum: ['true', 'false'],
    },
  )
  @query('webhook_endpoint_uuid', 'Only events that went to this endpoint.', {
    type: 'string',
    format: 'uuid',
  })
  @ApiOkResponse({ schema: EVENTS_PAGE_SCHEMA })
  list(@Query() params: Record<string, unknown>) {
    return this.events.list(params);
  }

  @Get(':event_id')
  @ApiOperation({
    operationId: 'getEvent',
    summary: 'One event and its deliveries',
    description:
      'The event’s envelope (its id, `evt_…`, is the `webhook-id` of its deliveries) and, for each endpoint ' +
      'it went to, the delivery’s state: `waiting`, `admitted`, `retrying`, `failed` or `delivered`.',
  })
  @ApiParam({ name: 'event_id', example: 'evt_0mq1z2x3y4a1b2c3d4e5f6a7b8c9d' })
  @ApiErrors(404)
  @ApiOkResponse({ schema: EVENT_SCHEMA })
  find(@Param('event_id') eventId: string) {
    return this.events.find(eventId);
  }
}
