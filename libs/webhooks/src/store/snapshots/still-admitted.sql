SELECT d.uuid, d.attempts FROM webhook_deliveries d WHERE d.uuid = ANY($1::uuid[]) AND d.status = 'admitted'
