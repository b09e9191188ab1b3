import { EventDeclaration } from '@wharf/core';
import { OperationalEvent } from '../outbox/operational-events';

const ENDPOINT = '6f1d3c2a-8b4e-4f5a-9c7d-2e1f0a3b4c5d';

function endpointExample(status: string, reason: string, message: string) {
  return {
    id: ENDPOINT,
    webhook_endpoint_uuid: ENDPOINT,
    url: 'https://hooks.example.com/wharf',
    status,
    reason,
    message,
  };
}

/** They tell of endpoints: whoever may read the endpoints may receive and read them. */
export const ENDPOINTS_READ = 'webhooks.endpoints:read';

const ABOUT =
  ' Subscribe by name ("*" does not include operational events). Never delivered to the endpoint it is about ' +
  '(data.webhook_endpoint_uuid): subscribe another endpoint to hear of it.';

/**
 * The operational events in the catalog (declared by the webhooks extension, so endpoints subscribe to them
 * like any event): their descriptions and example data, from which their schemas are derived.
 */
export const OPERATIONAL_EVENT_DECLARATIONS: (EventDeclaration & { name: OperationalEvent })[] = [
  {
    name: 'endpoint.disabled',
    permission: ENDPOINTS_READ,
    description:
      'An endpoint stopped receiving deliveries. reason: gone_410 (it answered 410 Gone), failing_since (it failed ' +
      'without a success for WEBHOOKS_AUTO_DISABLE_AFTER_DAYS) or manual (disabled through the API).' +
      ABOUT,
    example: endpointExample('disabled', 'gone_410', 'The endpoint answered 410 Gone.'),
  },
  {
    name: 'endpoint.enabled',
    permission: ENDPOINTS_READ,
    description: 'An endpoint was enabled again through the API (reason: manual).' + ABOUT,
    example: endpointExample('enabled', 'manual', 'Enabled by a user.'),
  },
  {
    name: 'endpoint.throttled',
    permission: ENDPOINTS_READ,
    description:
      'Attempts to an endpoint timed out repeatedly: it gets one attempt at a time until one succeeds.' +
      ABOUT,
    example: endpointExample(
      'enabled',
      'timeouts',
      '3 attempts in a row timed out: sending one at a time until one succeeds.',
    ),
  },
  {
    name: 'endpoint.unthrottled',
    permission: ENDPOINTS_READ,
    description: 'A throttled endpoint answered an attempt successfully: its concurrency is back.' + ABOUT,
    example: endpointExample('enabled', 'success', 'An attempt succeeded: no longer throttled.'),
  },
  {
    name: 'endpoint.recovered',
    permission: ENDPOINTS_READ,
    description: 'An endpoint whose attempts were failing answered one successfully.' + ABOUT,
    example: endpointExample(
      'enabled',
      'success',
      'An attempt succeeded after failures since 2026-11-20 09:00:00+00',
    ),
  },
  {
    name: 'delivery.exhausted',
    permission: ENDPOINTS_READ,
    description:
      'A delivery failed for good: its last retry failed, or the endpoint answered 410 Gone or is a blocked target. ' +
      'data is the delivery: its event, attempts made, and the last response status and error (null when none). ' +
      'A delivery of an operational event makes none.' +
      ABOUT,
    example: {
      id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      webhook_endpoint_uuid: ENDPOINT,
      event_id: 'evt_0mq1z2x3ya1b2c3d4e5f6a7b8c9d',
      event: 'order.updated',
      attempts: 8,
      last_response_status: 503,
      last_error: 'timeout',
    },
    // No answer (a refused connection, a timeout) has no status; an answer has no error.
    nullable: ['last_response_status', 'last_error'],
  },
];
