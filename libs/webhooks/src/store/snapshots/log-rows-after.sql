SELECT uuid, webhook_endpoint_uuid, event_id, event, attempt, test, url, request_headers, request_body,
  response_status, response_headers, response_body, duration_ms, error, status, sent_at, created_at, updated_at,
  id, (extract(epoch FROM sent_at) * 1000000)::bigint::text AS at_us FROM webhook_request_logs
WHERE company_uuid = $1 AND sent_at >= greatest('epoch'::timestamptz + $2::bigint * interval '1 microsecond', now() - interval '1 day')
  AND (sent_at, id) > ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::int)
ORDER BY sent_at, id LIMIT $4
