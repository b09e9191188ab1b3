import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Permission } from '@wharf/core';
import { EndpointProbeService } from './endpoint-probe.service';
import { TriggerEventDto } from './listen-session.dto';
import { TRIGGERED_SCHEMA } from './listen-sessions.schema';

/** `wharf trigger`: a catalog event sent now to every endpoint (and listen session) it would go to. */
@ApiTags('webhook-events')
@Permission('webhooks.endpoints:write')
@Controller('webhook-events')
export class WebhookTriggerController {
  constructor(private readonly probe: EndpointProbeService) {}

  @Post(':event/trigger')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'triggerWebhookEvent',
    summary: 'Send a test event to every endpoint subscribed to it',
    description:
      'One event of that name, with the catalog’s example data or `data`, sent now as a test send ' +
      '(signed, logged with test: true, not retried) to each enabled endpoint subscribed to it whose filter ' +
      'it matches, listen sessions included. Returns the event id and the request-log row of each send.',
  })
  @ApiParam({ name: 'event', example: 'order.created' })
  @ApiBody({ type: TriggerEventDto, required: false })
  @ApiErrors(404)
  @ApiOkResponse({ schema: TRIGGERED_SCHEMA })
  trigger(@Param('event') event: string, @Body() body: unknown) {
    return this.probe.trigger(event, body);
  }
}
