SELECT 1 FROM "webhook_events_default" WHERE "event_id" >= 'evt_0m5ek7pc0'
         AND "event_id" < 'evt_0m5ek7pc1' LIMIT 1
