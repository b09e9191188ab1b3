SELECT d.uuid, d.webhook_endpoint_uuid AS endpoint, d.attempts, d.admission
FROM webhook_deliveries d
WHERE d.status = 'admitted' AND d.admitted_at < now() - make_interval(secs => $1)
ORDER BY d.admitted_at LIMIT 1000
