SELECT EXISTS (SELECT 1 FROM webhook_events_undispatched u JOIN "webhook_events_p20250102t000000" e ON e.id = u.id) AS queued
