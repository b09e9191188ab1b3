SELECT e.created_at::text AS at, e.id::text AS id, e.event_id, e.payload::text AS payload
FROM webhook_events e
WHERE e.company_uuid = $1 AND (e.created_at, e.id) > ($2::timestamptz, $3::bigint)
  AND strpos(e.payload::text, $4) > 0
ORDER BY e.created_at, e.id LIMIT $5 FOR UPDATE
