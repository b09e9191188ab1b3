SELECT (SELECT count(*) FROM webhook_deliveries WHERE company_uuid = $1)::int AS webhook_deliveries,
  (SELECT count(*) FROM webhook_events WHERE company_uuid = $1)::int AS webhook_events,
  (SELECT count(*) FROM webhook_request_logs WHERE company_uuid = $1)::int AS webhook_request_logs
