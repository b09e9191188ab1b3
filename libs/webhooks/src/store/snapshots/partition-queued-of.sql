SELECT e.event_id FROM "webhook_events_default" e JOIN webhook_events_undispatched u ON u.id = e.id
