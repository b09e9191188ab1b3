WITH deliveries AS (DELETE FROM webhook_deliveries WHERE company_uuid = $1),
  events AS (DELETE FROM webhook_events WHERE company_uuid = $1),
  logs AS (DELETE FROM webhook_request_logs WHERE company_uuid = $1)
SELECT 1
