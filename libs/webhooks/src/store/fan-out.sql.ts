import { OPERATIONAL_EVENTS_SQL, subscribesSql } from '../outbox/operational-events';
import { UNDISPATCHED_EVENTS } from './tables';
import { FAN_OUT_BATCH } from '../tuning';
import { firstWaitingAt, windowRoom } from './admission.sql';
import { admissionNumber } from './transitions.sql';
import { admitted, isIn, stateLiteral } from './delivery-state';
import { ADMITTED_RETURNING, NO_JOB, jobRows } from './job-rows.sql';
import { orderingColumns } from './ordering.sql';

/**
 * Whether the endpoint `ep` gets an event (SQL expressions: its name, its envelope as jsonb, whether it is
 * operational): enabled, subscribed to it, and its payload filter, if any, matching. The fan-out's rule;
 * a trigger's test sends pick their endpoints by it too.
 */
export const receivesSql = (name: string, payload: string, operational: string): string =>
  `ep.status = 'enabled' AND ${subscribesSql('ep.events', name, operational)}
      AND (ep.filter_path IS NULL OR jsonb_path_match(${payload}, ep.filter_path, ep.filter_vars))`;

/**
 * Fan-out, one statement (one round trip, one atomic commit): claim a batch of undispatched events (SKIP
 * LOCKED, so relays in several workers share the work), take them off the queue, and create a delivery for
 * every matching enabled endpoint. An endpoint matches an event by its name and, when it has a payload
 * filter, by that filter's compiled path (jsonb_path_match over the stored payload, with the filter's own
 * variables: one fixed statement whatever the filters). An operational event goes only to endpoints that
 * name it (`*` means the platform's data events, as before they existed), never to the endpoint it is about. An ordered endpoint's delivery also records its record (`data.id`) and outbox position.
 *
 * A new delivery is admitted at once while its endpoint's window has room and nothing older waits, oldest
 * event first, by the admitter's rules; the rest wait for the admitter. An ordered endpoint's always wait:
 * whether one may go depends on outbox events other relays may hold uncommitted. No lock: two relays
 * fanning out to one endpoint at once may each fill its window from the same count, which overfills its
 * queue, never its sends (the leases bound those).
 *
 * Returns the job rows of what it admitted, a row naming each endpoint left with waiting deliveries
 * (`more`), and one row with only `claimed`, the number of events claimed.
 */
export const FAN_OUT = `
WITH queued AS (
  SELECT id, event_id FROM ${UNDISPATCHED_EVENTS} ORDER BY id LIMIT ${FAN_OUT_BATCH} FOR UPDATE SKIP LOCKED
), dispatched AS (
  DELETE FROM ${UNDISPATCHED_EVENTS} u WHERE u.id = ANY(ARRAY(SELECT id FROM queued))
), claimed AS (
  -- An id whose event is gone (deleted with its company before it was fanned out) is dropped all the same.
  -- Each event looked up by its event id, which names its outbox partition (an array of them would be
  -- looked for in every partition); LIMIT 1 keeps it a look-up per queued event, not a join that walked the
  -- outbox's whole primary key.
  SELECT e.id, e.event_id, e.company_uuid, e.name, e.payload, o.operational,
    CASE WHEN o.operational THEN (e.payload->'data'->>'webhook_endpoint_uuid')::uuid END AS about
  FROM (
    SELECT e.id, e.event_id, e.company_uuid, e.name, e.payload FROM queued q
    CROSS JOIN LATERAL (
      SELECT e.id, e.event_id, e.company_uuid, e.name, e.payload FROM webhook_events e
      WHERE e.event_id = q.event_id AND e.id = q.id LIMIT 1
    ) e
  ) e CROSS JOIN LATERAL (SELECT e.name = ANY(${OPERATIONAL_EVENTS_SQL}) AS operational) o
), targets AS (
  SELECT c.id, c.event_id, c.company_uuid, ep.uuid AS endpoint, ep.ordering = 'entity' AS ordered
  FROM claimed c
  -- Each event's company's endpoints, looked up by company (OFFSET 0 keeps the planner from flattening it
  -- into a join that read every enabled endpoint of every company).
  CROSS JOIN LATERAL (
    SELECT ep.uuid, ep.ordering FROM webhook_endpoints ep
    WHERE ep.company_uuid = c.company_uuid AND ${receivesSql('c.name', 'c.payload::jsonb', 'c.operational')}
      AND ep.uuid IS DISTINCT FROM c.about
    OFFSET 0
  ) ep
), room AS MATERIALIZED (
  -- Once per endpoint, not per event: how many of its new deliveries may be admitted now.
  SELECT ep.uuid AS endpoint,
    CASE WHEN ep.ordering = 'entity' OR ${firstWaitingAt('ep.uuid')} <= now() THEN 0
      ELSE ${windowRoom('ep')} END AS free
  FROM webhook_endpoints ep WHERE ep.uuid = ANY(ARRAY(SELECT DISTINCT t.endpoint FROM targets t))
), inserted AS (
  INSERT INTO webhook_deliveries AS d (event_id, webhook_endpoint_uuid, company_uuid, entity_key, event_seq, status, admitted_at, admission)
  SELECT n.event_id, n.endpoint, n.company_uuid, n.entity_key, n.event_seq,
    CASE WHEN n.admit THEN ${stateLiteral('admitted')} ELSE ${stateLiteral('waiting')} END,
    CASE WHEN n.admit THEN now() END, CASE WHEN n.admit THEN ${admissionNumber()} END
  FROM (
    SELECT t.id, t.event_id, t.endpoint, t.company_uuid,
      ${orderingColumns('t.ordered', 'SELECT e.payload FROM webhook_events e WHERE e.event_id = t.event_id', 't.id')},
      row_number() OVER (PARTITION BY t.endpoint ORDER BY t.id) <= r.free AS admit
    FROM targets t JOIN room r ON r.endpoint = t.endpoint
  ) n(id, event_id, endpoint, company_uuid, entity_key, event_seq, admit) ORDER BY n.id
  ON CONFLICT (webhook_endpoint_uuid, event_id) DO NOTHING
  ${ADMITTED_RETURNING}, d.status
), admitted AS (
  SELECT * FROM inserted i WHERE ${admitted('i')}
)
SELECT j.*, NULL::uuid AS more, NULL::int AS claimed FROM (${jobRows('admitted')}) j
UNION ALL
SELECT ${NO_JOB}, w.endpoint, NULL
FROM (SELECT DISTINCT i.webhook_endpoint_uuid AS endpoint FROM inserted i WHERE ${isIn('i', 'waiting')}) w
UNION ALL
SELECT ${NO_JOB}, NULL, count(*)::int FROM queued`;
