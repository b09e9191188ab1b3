SELECT count(*) FILTER (WHERE d.status = 'admitted')::int AS in_flight,
       count(*) FILTER (WHERE d.status IN ('waiting', 'retrying') AND d.next_attempt_at <= now())::int AS waiting,
       count(*) FILTER (WHERE d.status IN ('waiting', 'retrying') AND d.next_attempt_at > now())::int AS retrying
FROM webhook_deliveries d WHERE d.webhook_endpoint_uuid = $1 AND d.status <> 'failed'
