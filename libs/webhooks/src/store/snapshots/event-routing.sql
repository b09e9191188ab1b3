SELECT e.name, e.payload::text AS payload, e.created_at AS event_created_at,
  EXISTS (SELECT 1 FROM webhook_events_undispatched u WHERE u.id = e.id) AS pending,
  ep.uuid AS endpoint, ep.url, ep.status AS endpoint_status, ep.filter, ep.created_at > e.created_at AS created_after,
  (ep.events ? e.name OR ep.events ? '*' AND NOT e.name = ANY('{endpoint.disabled,endpoint.enabled,endpoint.throttled,endpoint.unthrottled,endpoint.recovered,delivery.exhausted}'::text[])) AS subscribed, d.status AS delivery_status, d.attempts,
  (SELECT count(*) FROM webhook_request_logs l
   WHERE l.event_id = e.event_id AND l.webhook_endpoint_uuid = ep.uuid AND NOT l.test)::int AS logged_attempts,
  EXISTS (SELECT 1 FROM webhook_request_logs l WHERE l.event_id = e.event_id AND l.webhook_endpoint_uuid = ep.uuid
          AND NOT l.test AND l.status = 'successful') AS delivered
FROM webhook_events e
LEFT JOIN webhook_endpoints ep ON ep.company_uuid = e.company_uuid
LEFT JOIN webhook_deliveries d ON d.webhook_endpoint_uuid = ep.uuid AND d.event_id = e.event_id
WHERE e.company_uuid = $1 AND e.event_id = $2 AND ($3::text[] IS NULL OR e.name = ANY ($3::text[]))
ORDER BY ep.created_at, ep.uuid
