import { isIn } from './delivery-state';

/**
 * The events API's statements. Parameters, the same in each: $1 company, $2 an event id every row is below
 * (the cursor, or past the newest), $3 one every row is at or above (both prune the partitions of
 * webhook_events, whose key is the event id), $4 names (NULL: any), $5 the record's id (`data.id`), $6/$7
 * created_at bounds, $8 an endpoint the event went to, $9 the rows to read.
 */
const EVENT_FILTERS = (e: string) => `${e}.company_uuid = $1 AND ${e}.event_id < $2 AND ${e}.event_id >= $3
  AND ($4::text[] IS NULL OR ${e}.name = ANY ($4::text[]))
  AND ($5::text IS NULL OR ${e}.payload -> 'data' ->> 'id' = $5::text)
  AND ($6::timestamptz IS NULL OR ${e}.created_at >= $6::timestamptz)
  AND ($7::timestamptz IS NULL OR ${e}.created_at <= $7::timestamptz)`;

/** Whether delivery `d` failed or is retrying: the partial index's predicate (migration 1700000000117). */
const UNSUCCESSFUL = (d: string) => isIn(d, 'retrying', 'failed');

/**
 * A company's events newest first; with $8, those with a delivery to that endpoint or an attempt logged
 * to it (a delivered delivery is deleted, its attempts stay in the log). $10: true for those with no
 * unsuccessful delivery (NULL: all).
 */
export const LIST_EVENTS = `
SELECT e.event_id, e.payload::text AS payload FROM webhook_events e
WHERE ${EVENT_FILTERS('e')}
  AND ($8::uuid IS NULL
    OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.event_id AND d.webhook_endpoint_uuid = $8::uuid)
    OR EXISTS (SELECT 1 FROM webhook_request_logs l WHERE l.company_uuid = $1 AND l.event_id = e.event_id
               AND l.webhook_endpoint_uuid = $8::uuid AND NOT l.test))
  AND ($10::boolean IS NULL OR NOT EXISTS (SELECT 1 FROM webhook_deliveries d
    WHERE d.company_uuid = $1 AND d.event_id = e.event_id AND ${UNSUCCESSFUL('d')}))
ORDER BY e.event_id DESC
LIMIT $9`;

/**
 * A company's events with at least one delivery (to endpoint $8, when given) that failed or is retrying,
 * newest first: read off the partial index of such deliveries, newest first, each event looked up by its
 * id (one partition).
 */
export const LIST_UNSUCCESSFUL_EVENTS = `
SELECT e.event_id, e.payload::text AS payload
FROM (SELECT DISTINCT d.event_id FROM webhook_deliveries d
      WHERE d.company_uuid = $1 AND ${UNSUCCESSFUL('d')} AND d.event_id < $2 AND d.event_id >= $3
        AND ($8::uuid IS NULL OR d.webhook_endpoint_uuid = $8::uuid)
      ORDER BY d.event_id DESC) f
JOIN webhook_events e ON e.event_id = f.event_id
WHERE ${EVENT_FILTERS('e')}
ORDER BY e.event_id DESC
LIMIT $9`;

/**
 * One event of the company and where it went: each endpoint with a delivery of it now, or an attempt of it
 * in the request log (a delivered delivery is deleted), its state and attempts. $3: the event names the
 * caller may read (NULL: any).
 */
export const EVENT_DELIVERIES = `
SELECT e.payload::text AS payload, x.webhook_endpoint_uuid, x.status, x.attempts, x.next_attempt_at
FROM webhook_events e
LEFT JOIN LATERAL (
  SELECT d.webhook_endpoint_uuid, d.status, d.attempts,
    CASE WHEN ${isIn('d', 'retrying', 'waiting')} THEN d.next_attempt_at END AS next_attempt_at
  FROM webhook_deliveries d WHERE d.event_id = e.event_id
  UNION ALL
  SELECT l.webhook_endpoint_uuid, 'delivered', count(*)::int, NULL
  FROM webhook_request_logs l
  WHERE l.company_uuid = e.company_uuid AND l.event_id = e.event_id AND NOT l.test
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.event_id AND d.webhook_endpoint_uuid = l.webhook_endpoint_uuid)
  GROUP BY l.webhook_endpoint_uuid
  HAVING bool_or(l.status = 'successful')
) x ON true
WHERE e.company_uuid = $1 AND e.event_id = $2 AND ($3::text[] IS NULL OR e.name = ANY ($3::text[]))
ORDER BY x.webhook_endpoint_uuid`;
