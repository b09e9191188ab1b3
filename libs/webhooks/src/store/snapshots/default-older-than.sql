SELECT 1 FROM "webhook_events_default" r WHERE r."event_id" < 'evt_0m5ek7pc0' LIMIT 1
