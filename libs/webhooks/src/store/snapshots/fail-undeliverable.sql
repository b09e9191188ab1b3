UPDATE webhook_deliveries d SET status = 'failed', admitted_at = NULL, admission = NULL, updated_at = now()
WHERE d.uuid = ANY($1::uuid[]) AND d.status = 'admitted'
