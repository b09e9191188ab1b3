UPDATE webhook_request_logs l SET request_body = v.request_body, response_body = v.response_body
FROM unnest($1::int[], $2::timestamptz[], $3::text[], $4::text[]) AS v(id, sent_at, request_body, response_body)
WHERE l.id = v.id AND l.sent_at = v.sent_at
