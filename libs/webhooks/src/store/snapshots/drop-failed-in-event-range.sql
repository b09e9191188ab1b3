DELETE FROM webhook_deliveries d WHERE ($1::text IS NULL OR d.event_id >= $1) AND d.event_id < $2 AND d.status = 'failed'
