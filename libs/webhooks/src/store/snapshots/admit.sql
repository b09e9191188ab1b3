WITH endpoint AS (
  SELECT ep.uuid, ep.status, ep.ordering = 'entity' AS ordered, ((CASE WHEN ep.throttled THEN 1 ELSE ep.max_in_flight END) - (SELECT count(*) FROM webhook_deliveries counted
    WHERE counted.webhook_endpoint_uuid = ep.uuid AND counted.status = 'admitted')::int) AS free
  FROM webhook_endpoints ep WHERE ep.uuid = ANY($1::uuid[])
), picked AS (
  SELECT w.uuid FROM endpoint ep CROSS JOIN LATERAL (
    SELECT d.uuid FROM webhook_deliveries d
    WHERE d.webhook_endpoint_uuid = ep.uuid AND d.status IN ('waiting', 'retrying') AND d.next_attempt_at <= now() AND (NOT ep.ordered OR d.entity_key IS NULL OR d.event_seq < (SELECT coalesce(min(id), 9223372036854775807) FROM webhook_events_undispatched) AND NOT EXISTS (
     SELECT 1 FROM webhook_deliveries p
     WHERE p.webhook_endpoint_uuid = d.webhook_endpoint_uuid AND p.entity_key = d.entity_key
       AND p.status <> 'failed' AND p.event_seq < d.event_seq AND NOT false))
    ORDER BY d.next_attempt_at LIMIT greatest(ep.free, 0)
  ) w WHERE ep.status = 'enabled' AND ep.free > 0
), admitted AS (
  -- An array, not a join: a generic plan cannot know how many there are.
  UPDATE webhook_deliveries d SET status = 'admitted', admitted_at = now(), admission = ((SELECT nextval('webhook_admission_seq')) * 1024 + 0)
  WHERE d.uuid = ANY(ARRAY(SELECT p.uuid FROM picked p)) AND d.status IN ('waiting', 'retrying')
  RETURNING d.uuid, d.webhook_endpoint_uuid, d.company_uuid, d.attempts, d.event_id, d.admission
), dropped AS (
  -- An array of uuids found through the waiting index: a join here could plan as a scan of every delivery.
  UPDATE webhook_deliveries d SET status = 'failed', admitted_at = NULL, admission = NULL, updated_at = now()
  WHERE d.uuid = ANY(ARRAY(
    SELECT w.uuid FROM endpoint ep CROSS JOIN LATERAL (
      SELECT w.uuid FROM webhook_deliveries w
      WHERE w.webhook_endpoint_uuid = ep.uuid AND w.status IN ('waiting', 'retrying') AND w.next_attempt_at <= now() ORDER BY w.next_attempt_at
    ) w WHERE ep.status <> 'enabled'
  )) AND d.status IN ('waiting', 'retrying') AND d.next_attempt_at <= now()
)

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
) ep
