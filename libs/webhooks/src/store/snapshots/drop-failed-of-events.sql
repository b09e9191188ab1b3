DELETE FROM webhook_deliveries WHERE event_id = ANY($1::text[]) AND status = 'failed'
