SELECT event_id FROM "webhook_events_default" r WHERE r."event_id" < 'evt_0m5ek7pc0'
