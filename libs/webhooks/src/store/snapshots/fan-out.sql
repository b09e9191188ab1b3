WITH queued AS (
  SELECT id, event_id FROM webhook_events_undispatched ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED
), dispatched AS (
  DELETE FROM webhook_events_undispatched u WHERE u.id = ANY(ARRAY(SELECT id FROM queued))
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
  ) e CROSS JOIN LATERAL (SELECT e.name = ANY('{endpoint.disabled,endpoint.enabled,endpoint.throttled,endpoint.unthrottled,endpoint.recovered,delivery.exhausted}'::text[]) AS operational) o
), targets AS (
  SELECT c.id, c.event_id, c.company_uuid, ep.uuid AS endpoint, ep.ordering = 'entity' AS ordered
  FROM claimed c
  -- Each event's company's endpoints, looked up by company (OFFSET 0 keeps the planner from flattening it
  -- into a join that read every enabled endpoint of every company).
  CROSS JOIN LATERAL (
    SELECT ep.uuid, ep.ordering FROM webhook_endpoints ep
    WHERE ep.company_uuid = c.company_uuid AND ep.status = 'enabled' AND (ep.events ? c.name OR ep.events ? '*' AND NOT c.operational)
      AND (ep.filter_path IS NULL OR jsonb_path_match(c.payload::jsonb, ep.filter_path, ep.filter_vars))
      AND ep.uuid IS DISTINCT FROM c.about
    OFFSET 0
  ) ep
), room AS MATERIALIZED (
  -- Once per endpoint, not per event: how many of its new deliveries may be admitted now.
  SELECT ep.uuid AS endpoint,
    CASE WHEN ep.ordering = 'entity' OR (SELECT w.next_attempt_at FROM webhook_deliveries w
    WHERE w.webhook_endpoint_uuid = ep.uuid AND w.status IN ('waiting', 'retrying')
    ORDER BY w.next_attempt_at OFFSET 0 LIMIT 1) <= now() THEN 0
      ELSE ((CASE WHEN ep.throttled THEN 1 ELSE ep.max_in_flight END) - (SELECT count(*) FROM webhook_deliveries counted
    WHERE counted.webhook_endpoint_uuid = ep.uuid AND counted.status = 'admitted')::int) END AS free
  FROM webhook_endpoints ep WHERE ep.uuid = ANY(ARRAY(SELECT DISTINCT t.endpoint FROM targets t))
), inserted AS (
  INSERT INTO webhook_deliveries AS d (event_id, webhook_endpoint_uuid, company_uuid, entity_key, event_seq, status, admitted_at, admission)
  SELECT n.event_id, n.endpoint, n.company_uuid, n.entity_key, n.event_seq,
    CASE WHEN n.admit THEN 'admitted' ELSE 'waiting' END,
    CASE WHEN n.admit THEN now() END, CASE WHEN n.admit THEN ((SELECT nextval('webhook_admission_seq')) * 1024 + 0) END
  FROM (
    SELECT t.id, t.event_id, t.endpoint, t.company_uuid,
      CASE WHEN t.ordered THEN (SELECT e.payload FROM webhook_events e WHERE e.event_id = t.event_id)->'data'->>'id' END, CASE WHEN t.ordered THEN t.id END,
      row_number() OVER (PARTITION BY t.endpoint ORDER BY t.id) <= r.free AS admit
    FROM targets t JOIN room r ON r.endpoint = t.endpoint
  ) n(id, event_id, endpoint, company_uuid, entity_key, event_seq, admit) ORDER BY n.id
  ON CONFLICT (webhook_endpoint_uuid, event_id) DO NOTHING
  RETURNING d.uuid, d.webhook_endpoint_uuid, d.company_uuid, d.attempts, d.event_id, d.admission, d.status
), admitted AS (
  SELECT * FROM inserted i WHERE i.status = 'admitted'
)
SELECT j.*, NULL::uuid AS more, NULL::int AS claimed FROM (
SELECT a.uuid, a.webhook_endpoint_uuid, a.company_uuid, a.attempts, e.event_id, e.name, e.payload::text AS body, (extract(epoch FROM ep.updated_at) * 1000)::bigint AS version, a.admission, ep.rate_limit_per_second IS NOT NULL AS limited, (CASE WHEN ep.throttled THEN 1 ELSE ep.max_in_flight END) AS cap, e.trace_context
FROM admitted a
-- Its event: one look-up by event id, which names the outbox partition (as a join, a partition with no
-- statistics could be planned as a walk of its whole index, filtered).
CROSS JOIN LATERAL (
  SELECT e.event_id, e.name, e.payload, e.trace_context FROM webhook_events e WHERE e.event_id = a.event_id LIMIT 1
) e
-- A look-up by key per row (LIMIT 1 keeps the planner from flattening it into a join, which a generic plan
-- made with few endpoints turned into a walk of the whole endpoint index per admitted delivery).
CROSS JOIN LATERAL (
  SELECT ep.updated_at, ep.rate_limit_per_second, ep.throttled, ep.max_in_flight FROM webhook_endpoints ep
  WHERE ep.uuid = a.webhook_endpoint_uuid LIMIT 1
) ep) j
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, w.endpoint, NULL
FROM (SELECT DISTINCT i.webhook_endpoint_uuid AS endpoint FROM inserted i WHERE i.status = 'waiting') w
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, count(*)::int FROM queued
