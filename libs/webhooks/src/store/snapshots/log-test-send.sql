INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, event_id, event, attempt, test, url,
  request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
VALUES ($1, $2, $3, $4, 1, true, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING uuid
