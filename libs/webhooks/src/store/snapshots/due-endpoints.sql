WITH RECURSIVE endpoints AS (
  (SELECT webhook_endpoint_uuid AS uuid FROM webhook_deliveries w
   WHERE w.status IN ('waiting', 'retrying') ORDER BY webhook_endpoint_uuid LIMIT 1)
  UNION ALL
  SELECT (SELECT d.webhook_endpoint_uuid FROM webhook_deliveries d
          WHERE d.status IN ('waiting', 'retrying') AND d.webhook_endpoint_uuid > e.uuid
          ORDER BY d.webhook_endpoint_uuid LIMIT 1)
  FROM endpoints e WHERE e.uuid IS NOT NULL
)
SELECT e.uuid FROM endpoints e WHERE e.uuid IS NOT NULL AND (SELECT w.next_attempt_at FROM webhook_deliveries w
    WHERE w.webhook_endpoint_uuid = e.uuid AND w.status IN ('waiting', 'retrying')
    ORDER BY w.next_attempt_at OFFSET 0 LIMIT 1) <= now()
