import { resourceSchemas, schemaRef } from '@wharf/core';
import { WEBHOOK_ENDPOINT } from '../endpoints/webhook-endpoints.service';
import { WEBHOOK_REQUEST_LOG } from '../request-logs/webhook-request-log.entity';

/** OpenAPI schemas of the listen-session routes and the trigger. */
const UUID = { type: 'string', format: 'uuid' };
export const SESSION_SCHEMA = {
  type: 'object',
  properties: {
    listen_session: {
      type: 'object',
      properties: {
        uuid: UUID,
        forward_to: { type: 'string', example: 'http://localhost:4242/webhook' },
        secret: {
          type: 'string',
          description: 'The signing secret of the session’s deliveries (shown this once).',
          example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
        webhook_endpoint: schemaRef(resourceSchemas(WEBHOOK_ENDPOINT).record),
      },
      required: ['uuid', 'forward_to', 'secret', 'webhook_endpoint'],
    },
  },
  required: ['listen_session'],
};
export const ENDED_SCHEMA = {
  type: 'object',
  properties: {
    listen_session: {
      type: 'object',
      properties: { uuid: UUID, status: { type: 'string', const: 'ended' } },
      required: ['uuid', 'status'],
    },
  },
  required: ['listen_session'],
};
export const ANSWERED_SCHEMA = {
  type: 'object',
  properties: {
    listen_answer: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        received: {
          type: 'boolean',
          description: 'false when the send had stopped waiting (it timed out and is retried).',
        },
      },
      required: ['id', 'received'],
    },
  },
  required: ['listen_answer'],
};
export const TRIGGERED_SCHEMA = {
  type: 'object',
  properties: {
    webhook_trigger: {
      type: 'object',
      properties: {
        event: { type: 'string', example: 'order.created' },
        event_id: { type: 'string', example: 'evt_0mwzr4opp98935eebd9a13b9cd204' },
        webhook_request_logs: {
          type: 'array',
          description: 'One test send per endpoint it went to.',
          items: schemaRef(resourceSchemas(WEBHOOK_REQUEST_LOG).record),
        },
      },
      required: ['event', 'event_id', 'webhook_request_logs'],
    },
  },
  required: ['webhook_trigger'],
};
