SELECT COALESCE(extract(epoch FROM now() - min(created_at)), 0)::float8 AS lag
FROM webhook_events_undispatched u JOIN webhook_events e ON e.id = u.id
