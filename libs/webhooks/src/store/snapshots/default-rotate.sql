ALTER TABLE "webhook_events" DETACH PARTITION "webhook_events_default";
ALTER TABLE "webhook_events_default" RENAME TO "webhook_events_default_rotated";
CREATE TABLE "webhook_events_default" PARTITION OF "webhook_events" DEFAULT;
WITH kept AS (INSERT INTO "webhook_events" (<columns>) SELECT <columns> FROM "webhook_events_default_rotated" o WHERE NOT (o.event_id = ANY($1::text[])) RETURNING 1)
     SELECT (SELECT count(*) FROM "webhook_events_default_rotated")::int - (SELECT count(*) FROM kept)::int AS dropped;
DROP TABLE "webhook_events_default_rotated"
