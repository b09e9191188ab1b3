DELETE FROM webhook_deliveries d WHERE d.event_id = ANY($1::text[]) AND d.status = 'failed'
