UPDATE webhook_events e SET payload = v.payload::json
FROM unnest($1::text[], $2::text[]) AS v(event_id, payload) WHERE e.event_id = v.event_id
