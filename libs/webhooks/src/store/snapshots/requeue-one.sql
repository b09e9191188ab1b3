WITH e AS (
  SELECT id, event_id, name, created_at, payload FROM webhook_events WHERE event_id = $3 AND company_uuid = $1
), ep AS (
  SELECT uuid, ordering = 'entity' AS ordered FROM webhook_endpoints WHERE uuid = $2 AND company_uuid = $1
)
INSERT INTO webhook_deliveries AS d (event_id, webhook_endpoint_uuid, company_uuid, attempts, entity_key, event_seq)
SELECT e.event_id, ep.uuid, $1,
  coalesce((SELECT max(l.attempt) FROM webhook_request_logs l
            WHERE l.company_uuid = $1 AND l.event_id = $3 AND l.webhook_endpoint_uuid = $2 AND NOT l.test), 0),
  CASE WHEN ep.ordered THEN (e.payload)->'data'->>'id' END, CASE WHEN ep.ordered THEN e.id END
FROM e CROSS JOIN ep
ON CONFLICT (webhook_endpoint_uuid, event_id) DO UPDATE SET status = CASE WHEN d.status = 'admitted' THEN 'admitted' ELSE 'waiting' END,
   next_attempt_at = now(), admitted_at = CASE WHEN d.status = 'admitted' THEN d.admitted_at END,
   admission = CASE WHEN d.status = 'admitted' THEN d.admission END, updated_at = now()
RETURNING d.uuid, d.webhook_endpoint_uuid, d.event_id, (SELECT name FROM e) AS event, 'pending' AS status,
  d.attempts, (SELECT created_at FROM e) AS event_created_at
