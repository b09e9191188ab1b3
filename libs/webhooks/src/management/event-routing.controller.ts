import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiError, ApiErrors, Permission } from '@wharf/core';
import { EventRoutingService } from './event-routing.service';
import { ROUTING_SCHEMA } from './routing.schema';
import { EVENT_ID } from '../outbox/event-id';

/** `GET /int/v1/events/:event_id/routing`: where one stored event went, endpoint by endpoint, and why. */
@ApiTags('webhook-events')
@Permission('events:read')
@Controller('events')
export class EventRoutingController {
  constructor(private readonly routing: EventRoutingService) {}

  @Get(':event_id/routing')
  @ApiOperation({
    operationId: 'getEventRouting',
    summary: 'Which endpoints got an event, and why the others did not',
    description:
      'For one stored event (its envelope id, evt_…): every endpoint of the company, with its delivery or the ' +
      'reason there is none (event name, filter clause, disabled, created after the event).',
  })
  @ApiParam({ name: 'event_id', example: 'evt_0mq1z2x3y4a1b2c3d4e5f6a7b8c9d' })
  @ApiErrors(404)
  @ApiOkResponse({ schema: ROUTING_SCHEMA })
  get(@Param('event_id') eventId: string) {
    if (!EVENT_ID.test(eventId))
      throw ApiError.notFound(`No stored event ${JSON.stringify(eventId.slice(0, 80))}.`);
    return this.routing.routing(eventId);
  }
}
