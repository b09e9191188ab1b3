SELECT l.created_at::text AS at, l.id::text AS id, l.sent_at::text AS sent_at, l.request_body, l.response_body
FROM webhook_request_logs l
WHERE l.company_uuid = $1 AND (l.created_at, l.id) > ($2::timestamptz, $3::int)
  AND (strpos(l.request_body, $4) > 0 OR strpos(l.response_body, $4) > 0)
ORDER BY l.created_at, l.id LIMIT $5 FOR UPDATE
