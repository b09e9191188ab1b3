SELECT a.uuid, a.webhook_endpoint_uuid, a.company_uuid, a.attempts, e.event_id, e.name, e.payload::text AS body, (extract(epoch FROM ep.updated_at) * 1000)::bigint AS version, a.admission, ep.rate_limit_per_second IS NOT NULL AS limited, (CASE WHEN ep.throttled THEN 1 ELSE ep.max_in_flight END) AS cap, e.trace_context
FROM webhook_deliveries a
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
WHERE a.uuid = ANY($1::uuid[]) AND a.status = 'admitted'
