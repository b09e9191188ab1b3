ALTER TABLE "webhook_events" DETACH PARTITION "webhook_events_p20250102t000000";
DROP TABLE "webhook_events_p20250102t000000"
