import { orNull } from '@wharf/core';

/** OpenAPI schemas of the events API. */
const ENVELOPE = {
  type: 'object',
  description:
    'The event as an endpoint with `payload: "full"` receives it (see the event catalog for each event’s schema).',
  properties: {
    id: { type: 'string', example: 'evt_0mwzr4opp98935eebd9a13b9cd204' },
    api_version: { type: 'string', example: 'v1' },
    event: { type: 'string', example: 'warehouse.created' },
    created_at: { type: 'string', format: 'date-time' },
    data: { type: 'object', additionalProperties: true },
  },
  required: ['id', 'api_version', 'event', 'created_at', 'data'],
};

export const EVENTS_PAGE_SCHEMA = {
  type: 'object',
  properties: {
    events: { type: 'array', items: ENVELOPE },
    meta: {
      type: 'object',
      properties: {
        per_page: { type: 'integer' },
        next_cursor: orNull({
          type: 'string',
          description: 'Pass as `cursor` (with the same filters) for the next page; null on the last page.',
        }),
      },
      required: ['per_page', 'next_cursor'],
    },
  },
  required: ['events', 'meta'],
};

export const EVENT_SCHEMA = {
  type: 'object',
  properties: {
    event: ENVELOPE,
    deliveries: {
      type: 'array',
      description: 'Each endpoint the event went to, and what became of it there.',
      items: {
        type: 'object',
        properties: {
          webhook_endpoint_uuid: { type: 'string', format: 'uuid' },
          status: { type: 'string', enum: ['waiting', 'admitted', 'retrying', 'failed', 'delivered'] },
          attempts: { type: 'integer' },
          next_attempt_at: orNull({ type: 'string', format: 'date-time' }),
        },
        required: ['webhook_endpoint_uuid', 'status', 'attempts', 'next_attempt_at'],
      },
    },
  },
  required: ['event', 'deliveries'],
};
