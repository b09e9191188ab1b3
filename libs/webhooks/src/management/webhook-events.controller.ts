import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Permission, orNull } from '@wharf/core';
import { WebhookEventCatalog } from '../events/webhook-event-catalog.service';

/** `GET /int/v1/webhook-events`: the event catalog, for picking an endpoint's events. */
@ApiTags('webhook-events')
@Permission('webhooks.endpoints:read')
@Controller('webhook-events')
export class WebhookEventsController {
  constructor(private readonly catalog: WebhookEventCatalog) {}

  @Get()
  @ApiOperation({
    operationId: 'listWebhookEvents',
    summary: 'The events endpoints can subscribe to',
    description: 'Each resource’s created/updated/deleted and the custom events loaded extensions declare.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: {
        webhook_events: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string', example: 'warehouse.created' },
              resource: { type: 'string', example: 'warehouse' },
              description: { type: 'string' },
              example: { type: 'object', description: 'The envelope as delivered, with example data.' },
              schema: {
                type: 'object',
                description: 'JSON Schema (2020-12) of the envelope as delivered.',
              },
              thin: orNull({
                type: 'object',
                description:
                  'The event as an endpoint with `payload: "thin"` receives it (a reference to the record); null for an event about no record, which is always sent in full.',
                properties: { example: { type: 'object' }, schema: { type: 'object' } },
                required: ['example', 'schema'],
              }),
            },
            required: ['name', 'resource', 'description', 'example', 'schema', 'thin'],
          },
        },
      },
      required: ['webhook_events'],
    },
  })
  list() {
    return { webhook_events: this.catalog.all() };
  }
}
