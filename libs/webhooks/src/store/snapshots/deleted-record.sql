SELECT EXISTS (
  SELECT 1 FROM webhook_events e
  WHERE e.company_uuid = $1 AND e.name = $2 AND e.payload -> 'data' ->> 'id' = $3::text
) AS deleted
