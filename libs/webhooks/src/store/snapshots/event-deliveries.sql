SELECT e.payload::text AS payload, x.webhook_endpoint_uuid, x.status, x.attempts, x.next_attempt_at
FROM webhook_events e
LEFT JOIN LATERAL (
  SELECT d.webhook_endpoint_uuid, d.status, d.attempts,
    CASE WHEN d.status IN ('retrying', 'waiting') THEN d.next_attempt_at END AS next_attempt_at
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
ORDER BY x.webhook_endpoint_uuid
