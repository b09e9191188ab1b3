SELECT e.event_id, e.payload::text AS payload FROM webhook_events e
WHERE e.company_uuid = $1 AND e.event_id < $2 AND e.event_id >= $3
  AND ($4::text[] IS NULL OR e.name = ANY ($4::text[]))
  AND ($5::text IS NULL OR e.payload -> 'data' ->> 'id' = $5::text)
  AND ($6::timestamptz IS NULL OR e.created_at >= $6::timestamptz)
  AND ($7::timestamptz IS NULL OR e.created_at <= $7::timestamptz)
  AND ($8::uuid IS NULL
    OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.event_id AND d.webhook_endpoint_uuid = $8::uuid)
    OR EXISTS (SELECT 1 FROM webhook_request_logs l WHERE l.company_uuid = $1 AND l.event_id = e.event_id
               AND l.webhook_endpoint_uuid = $8::uuid AND NOT l.test))
  AND ($10::boolean IS NULL OR NOT EXISTS (SELECT 1 FROM webhook_deliveries d
    WHERE d.company_uuid = $1 AND d.event_id = e.event_id AND d.status IN ('retrying', 'failed')))
ORDER BY e.event_id DESC
LIMIT $9
