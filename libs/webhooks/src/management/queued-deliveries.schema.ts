/** OpenAPI schema of what recover and resend return. */
export const QUEUED_DELIVERIES_SCHEMA = {
  type: 'object',
  properties: {
    webhook_deliveries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          uuid: { type: 'string', format: 'uuid' },
          webhook_endpoint_uuid: { type: 'string', format: 'uuid' },
          event_id: { type: 'string', description: 'The webhook-id the delivery is sent with.' },
          event: { type: 'string' },
          status: { type: 'string', enum: ['pending'] },
          attempts: { type: 'integer', description: 'Attempts made before; the next continues the count.' },
          event_created_at: { type: 'string', format: 'date-time' },
        },
      },
    },
    meta: { type: 'object', properties: { queued: { type: 'integer' } }, required: ['queued'] },
  },
  required: ['webhook_deliveries', 'meta'],
};
