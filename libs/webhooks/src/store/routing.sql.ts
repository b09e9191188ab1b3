import { OPERATIONAL_EVENTS_SQL, subscribesSql } from '../outbox/operational-events';
import { UNDISPATCHED_EVENTS } from './tables';

/** The event names a caller may read ($3 below); null: every one. */
export type ReadableEvents = readonly string[] | null;

/**
 * One stored event ($2, its envelope id) of company $1, unless its name is not among $3 (the names the
 * caller may read; NULL: any), and every endpoint of the company beside it (none:
 * one row with a null endpoint), with what became of the event there: its delivery's state, or whether the
 * request log holds a successful attempt (a delivered delivery is deleted). The console's routing view;
 * why an endpoint got no delivery is worked out from these columns (management/event-routing.service.ts).
 */
export const EVENT_ROUTING = `
SELECT e.name, e.payload::text AS payload, e.created_at AS event_created_at,
  EXISTS (SELECT 1 FROM ${UNDISPATCHED_EVENTS} u WHERE u.id = e.id) AS pending,
  ep.uuid AS endpoint, ep.url, ep.status AS endpoint_status, ep.filter, ep.created_at > e.created_at AS created_after,
  ${subscribesSql('ep.events', 'e.name', `e.name = ANY(${OPERATIONAL_EVENTS_SQL})`)} AS subscribed, d.status AS delivery_status, d.attempts,
  (SELECT count(*) FROM webhook_request_logs l
   WHERE l.event_id = e.event_id AND l.webhook_endpoint_uuid = ep.uuid AND NOT l.test)::int AS logged_attempts,
  EXISTS (SELECT 1 FROM webhook_request_logs l WHERE l.event_id = e.event_id AND l.webhook_endpoint_uuid = ep.uuid
          AND NOT l.test AND l.status = 'successful') AS delivered
FROM webhook_events e
LEFT JOIN webhook_endpoints ep ON ep.company_uuid = e.company_uuid
LEFT JOIN webhook_deliveries d ON d.webhook_endpoint_uuid = ep.uuid AND d.event_id = e.event_id
WHERE e.company_uuid = $1 AND e.event_id = $2 AND ($3::text[] IS NULL OR e.name = ANY ($3::text[]))
ORDER BY ep.created_at, ep.uuid`;
