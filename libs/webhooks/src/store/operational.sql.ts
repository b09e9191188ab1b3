import { OPERATIONAL_EVENTS_SQL } from '../outbox/operational-events';
import { API_VERSION } from '../outbox/envelope';
import { isIn } from './delivery-state';
import { OUTBOX_CHANNEL, UNDISPATCHED_EVENTS } from '../outbox/outbox.writer';

/**
 * The time part of an event id, as newEventId writes it (`evt_` + the epoch milliseconds in 9 base-36
 * digits), so events made here sort among the api's.
 */
const eventIdTime = () => {
  // The statement's time, read once: per-digit reads of a running clock could straddle a millisecond.
  const ms = '(extract(epoch FROM now()) * 1000)::bigint';
  const digits = Array.from(
    { length: 9 },
    (_, i) =>
      `substr('0123456789abcdefghijklmnopqrstuvwxyz', (${ms} / ${36 ** (8 - i)}::bigint % 36)::int + 1, 1)`,
  );
  return `'evt_' || ${digits.join(' || ')}`;
};

/** `data` of an endpoint.* event, from a row of endpoint_health. */
const endpointData = (reason: string, message: string) => `json_build_object('id', h.uuid,
    'webhook_endpoint_uuid', h.uuid, 'url', h.url, 'status', h.status, 'reason', ${reason}, 'message', ${message},
    'additionalData', '{}'::json)`;

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
    'attempts', b.attempt, 'last_response_status', b.response_status, 'last_error', b.error,
    'additionalData', '{}'::json)
  FROM retried r JOIN batch b ON b.webhook_delivery_uuid = r.uuid
  WHERE ${isIn('r', 'failed')} AND NOT b.event = ANY(${OPERATIONAL_EVENTS_SQL})
), operational_events AS (
  INSERT INTO webhook_events (event_id, company_uuid, name, payload)
  SELECT o.event_id, o.company_uuid, o.name, json_build_object('id', o.event_id, 'api_version', '${API_VERSION}',
    'event', o.name, 'created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', o.data)
  FROM (SELECT ${eventIdTime()} || left(replace(gen_random_uuid()::text, '-', ''), 20) AS event_id, op.* FROM operational op) o
  RETURNING id, event_id
), operational_queued AS (
  -- With its event id, which names its outbox partition for fan-out's look-up.
  INSERT INTO ${UNDISPATCHED_EVENTS} (id, event_id)
  SELECT e.id, e.event_id FROM operational_events e CROSS JOIN LATERAL (SELECT pg_notify('${OUTBOX_CHANNEL}', '')) n
)`;
