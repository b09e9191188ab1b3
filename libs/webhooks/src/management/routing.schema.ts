import { orNull } from '@wharf/core';

/** OpenAPI schemas of the routing view and the filter test. */
const FAILED_CLAUSE = orNull({
  type: 'object',
  description: 'The clause that decided a non-match: its JSON pointer inside the filter, and the clause.',
  properties: { pointer: { type: 'string', example: '/data.status/$in' }, clause: {} },
  required: ['pointer', 'clause'],
});

export const FILTER_TEST_SCHEMA = {
  type: 'object',
  properties: {
    matches: { type: 'boolean', description: 'Whether the filter (the draft, else the endpoint’s) matches.' },
    failed_clause: FAILED_CLAUSE,
    subscribed: { type: 'boolean', description: "Whether the event's name is among the endpoint's events." },
  },
  required: ['matches', 'failed_clause', 'subscribed'],
};

export const ROUTING_SCHEMA = {
  type: 'object',
  properties: {
    event: {
      type: 'object',
      properties: {
        event_id: { type: 'string' },
        name: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
        fanned_out: { type: 'boolean' },
      },
      required: ['event_id', 'name', 'created_at', 'fanned_out'],
    },
    routing: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          webhook_endpoint_uuid: { type: 'string', format: 'uuid' },
          url: { type: 'string' },
          status: { type: 'string', enum: ['enabled', 'disabled'] },
          reason: {
            type: 'string',
            enum: [
              'delivered',
              'delivery',
              'not_fanned_out_yet',
              'created_after_event',
              'event_not_subscribed',
              'about_itself',
              'filter',
              'disabled',
              'no_delivery',
            ],
          },
          detail: { type: 'string' },
          delivery: orNull({
            type: 'object',
            properties: { status: { type: 'string' }, attempts: { type: 'integer' } },
          }),
          failed_clause: FAILED_CLAUSE,
        },
        required: ['webhook_endpoint_uuid', 'url', 'status', 'reason', 'detail', 'delivery', 'failed_clause'],
      },
    },
  },
  required: ['event', 'routing'],
};
