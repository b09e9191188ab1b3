SELECT e.event_id, e.payload::text AS payload
FROM (SELECT DISTINCT d.event_id FROM webhook_deliveries d
      WHERE d.company_uuid = $1 AND d.status IN ('retrying', 'failed') AND d.event_id < $2 AND d.event_id >= $3
        AND ($8::uuid IS NULL OR d.webhook_endpoint_uuid = $8::uuid)
      ORDER BY d.event_id DESC) f
JOIN webhook_events e ON e.event_id = f.event_id
WHERE e.company_uuid = $1 AND e.event_id < $2 AND e.event_id >= $3
  AND ($4::text[] IS NULL OR e.name = ANY ($4::text[]))
  AND ($5::text IS NULL OR e.payload -> 'data' ->> 'id' = $5::text)
  AND ($6::timestamptz IS NULL OR e.created_at >= $6::timestamptz)
  AND ($7::timestamptz IS NULL OR e.created_at <= $7::timestamptz)
ORDER BY e.event_id DESC
LIMIT $9
