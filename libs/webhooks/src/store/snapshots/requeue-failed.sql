UPDATE webhook_deliveries d SET status = CASE WHEN d.status = 'admitted' THEN 'admitted' ELSE 'waiting' END,
   next_attempt_at = now(), admitted_at = CASE WHEN d.status = 'admitted' THEN d.admitted_at END,
   admission = CASE WHEN d.status = 'admitted' THEN d.admission END, updated_at = now()
FROM webhook_events e
WHERE e.event_id = d.event_id AND d.company_uuid = $1 AND d.webhook_endpoint_uuid = $2
  AND d.status = 'failed' AND e.created_at >= $3 AND ($4::timestamptz IS NULL OR e.created_at <= $4)
RETURNING d.uuid, d.webhook_endpoint_uuid, d.event_id, e.name AS event, 'pending' AS status,
  d.attempts, e.created_at AS event_created_at
