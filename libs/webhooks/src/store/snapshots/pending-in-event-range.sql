SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE ($1::text IS NULL OR event_id >= $1) AND event_id < $2 AND status <> 'failed') AS pending
