SELECT date_trunc($6, sent_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS at,
  count(*) FILTER (WHERE status = 'successful')::int AS successful,
  count(*) FILTER (WHERE status = 'failed' AND attempt > $5)::int AS failed,
  count(*) FILTER (WHERE status = 'failed' AND attempt <= $5)::int AS retrying
FROM webhook_request_logs
WHERE company_uuid = $1 AND sent_at >= $2 AND sent_at < $3 AND NOT test
  AND ($4::uuid IS NULL OR webhook_endpoint_uuid = $4::uuid)
  AND ($7::text[] IS NULL OR event = ANY($7::text[]))
GROUP BY 1 ORDER BY 1
