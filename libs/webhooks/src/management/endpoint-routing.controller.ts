import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiUuidParam, Permission, ReadByPost } from '@wharf/core';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { EventRoutingService } from './event-routing.service';
import { FilterTestDto } from './filter-test.dto';
import { FILTER_TEST_SCHEMA } from './routing.schema';

/** `/int/v1/webhook-endpoints/:uuid/…`: what an endpoint is sent (its headers) and what reaches it (its filter). */
@ApiTags('webhook-endpoints')
@Controller('webhook-endpoints')
export class EndpointRoutingController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly routing: EventRoutingService,
  ) {}

  @Get(':uuid/headers')
  @Permission('webhooks.secrets:reveal')
  @ApiOperation({
    operationId: 'getWebhookEndpointHeaders',
    summary: 'Reveal the static headers, with values',
    description:
      'The headers sent with every delivery (stored encrypted with APP_KEY); other answers show their names only, ' +
      'with values redacted.',
  })
  @ApiUuidParam()
  @ApiErrors(409)
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: { headers: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['headers'],
    },
  })
  headers(@Param('uuid') uuid: string) {
    return this.endpoints.revealHeaders(uuid);
  }

  @Post(':uuid/filter-test')
  // Evaluates a filter and changes nothing: open to read-only portal sessions.
  @ReadByPost()
  @Permission('webhooks.endpoints:read')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'testWebhookEndpointFilter',
    summary: "Whether an event matches the endpoint's filter, and if not which clause failed",
    description:
      'Send event (an envelope) or event_id (a stored event); filter tries a draft instead of the saved one. ' +
      'Evaluated by PostgreSQL exactly as at fan-out.',
  })
  @ApiUuidParam()
  @ApiBody({ type: FilterTestDto })
  @ApiOkResponse({ schema: FILTER_TEST_SCHEMA })
  filterTest(@Param('uuid') uuid: string, @Body() body: unknown) {
    return this.routing.filterTest(uuid, body);
  }
}
