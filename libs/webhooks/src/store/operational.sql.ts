import { OPERATIONAL_EVENTS_SQL } from '../outbox/operational-events';
import { envelopeSql } from '../outbox/envelope';
import { EVENT_ID_SQL } from '../outbox/event-id';
import { OUTBOX_CHANNEL } from '../outbox/outbox.signal';
import { isIn } from './delivery-state';
import { UNDISPATCHED_EVENTS } from './tables';

/** `data` of an endpoint.* event, from a row of endpoint_health. */
const endpointData = (reason: string, message: string) => `json_build_object('id', h.uuid,
    'webhook_endpoint_uuid', h.uuid, 'url', h.url, 'status', h.status, 'reason', ${reason}, 'message', ${message})`;

/**
 * Part 5 of the record (see record.sql.ts), operational events, written to the outbox in the record's own
 * commit: endpoint.disabled (gone_410, failing_since), endpoint.throttled / endpoint.unthrottled and
 * endpoint.recovered from what `endpoint_health` changed, and delivery.exhausted for each delivery this
 * batch failed for good — unless it delivered an operational event itself, so that failing endpoints do
 * not make events for each other without end. The relay delivers them like any event (never to the
 * endpoint they are about, fan-out.sql.ts); NOTIFY wakes it at commit.
 */
export const emitOperationalEvents = () => `operational AS (
  SELECT h.company_uuid, 'endpoint.disabled' AS name,
    ${endpointData(`CASE WHEN h.change = 'gone' THEN 'gone_410' ELSE 'failing_since' END`, 'h.disabled_reason')} AS data
  FROM endpoint_health h WHERE h.was_status = 'enabled' AND h.status = 'disabled'
  UNION ALL
  SELECT h.company_uuid, CASE WHEN h.throttled THEN 'endpoint.throttled' ELSE 'endpoint.unthrottled' END,
    ${endpointData(`CASE WHEN h.throttled THEN 'timeouts' ELSE 'success' END`, `coalesce(h.throttled_reason, 'An attempt succeeded: no longer throttled.')`)}
  FROM endpoint_health h WHERE h.throttled <> h.was_throttled
  UNION ALL
  SELECT h.company_uuid, 'endpoint.recovered',
    ${endpointData(`'success'`, `'An attempt succeeded after failures since ' || h.was_failing_since`)}
  FROM endpoint_health h WHERE h.change = 'healthy' AND h.was_failing_since IS NOT NULL
  UNION ALL
  SELECT b.company_uuid, 'delivery.exhausted', json_build_object('id', r.uuid,
    'webhook_endpoint_uuid', b.webhook_endpoint_uuid, 'event_id', b.event_id, 'event', b.event,
    'attempts', b.attempt, 'last_response_status', b.response_status, 'last_error', b.error)
  FROM retried r JOIN batch b ON b.webhook_delivery_uuid = r.uuid
  WHERE ${isIn('r', 'failed')} AND NOT b.event = ANY(${OPERATIONAL_EVENTS_SQL})
), operational_events AS (
  INSERT INTO webhook_events (event_id, company_uuid, name, payload)
  SELECT o.event_id, o.company_uuid, o.name, ${envelopeSql({
    id: 'o.event_id',
    event: 'o.name',
    createdAt: `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    record: 'o.data::text',
    additionalData: `'{}'`,
  })}
  FROM (SELECT ${EVENT_ID_SQL} AS event_id, op.* FROM operational op) o
  RETURNING id, event_id
), operational_queued AS (
  -- With its event id, which names its outbox partition for fan-out's look-up.
  INSERT INTO ${UNDISPATCHED_EVENTS} (id, event_id)
  SELECT e.id, e.event_id FROM operational_events e CROSS JOIN LATERAL (SELECT pg_notify('${OUTBOX_CHANNEL}', '')) n
)`;
