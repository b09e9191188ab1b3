ALTER TABLE "webhook_events" ATTACH PARTITION "webhook_events_p20250102t000000" FOR VALUES FROM ('evt_0m5ek7pc0') TO ('evt_0m5ek7pc1')
