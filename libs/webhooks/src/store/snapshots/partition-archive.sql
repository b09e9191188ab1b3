SELECT r.event_id AS key, row_to_json(r)::text AS line FROM "webhook_events_default" r
         WHERE ($2::text IS NULL OR r.event_id > $2::text)
           AND r.event_id = ANY($1::text[])
         ORDER BY r.event_id LIMIT 1000
