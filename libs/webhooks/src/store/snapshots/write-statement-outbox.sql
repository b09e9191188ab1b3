w_outbox AS (INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload", "trace_context")
           SELECT $1::text, $2, 'warehouse.updated', ('{"id":' || to_json(($1)::text)::text || ',"api_version":"v1","event":' || to_json(('warehouse.updated')::text)::text
    || ',"created_at":' || to_json(($3)::text)::text || ',"data":' || CASE WHEN left(w."record", 6) = '{"id":' AND strpos(w."record", '"additionalData":') = 0
      THEN left(w."record", -1) || ',"additionalData":' || '{"changes":' || w."changes"::text || '}' || '}' ELSE (SELECT '{' || string_agg(to_json(x.k)::text || ':' || x.v, ',' ORDER BY x.o) || '}' FROM (
      SELECT 'id' AS k, i.v, 0::bigint AS o FROM (SELECT (CASE WHEN EXISTS (SELECT 1 FROM json_object_keys((w."record")::json) k WHERE k = 'id')
          THEN (w."record")::json->'id' WHEN json_typeof((w."record")::json->'uuid') <> 'null' THEN (w."record")::json->'uuid' END)::text AS v) i WHERE i.v IS NOT NULL
      UNION ALL SELECT e.key, e.value::text, e.n FROM json_each((w."record")::json) WITH ORDINALITY e(key, value, n)
        WHERE e.key NOT IN ('id', 'additionalData')
      UNION ALL SELECT 'additionalData', '{"changes":' || w."changes"::text || '}', COALESCE((SELECT e.n FROM json_each((w."record")::json) WITH ORDINALITY e(key, value, n)
        WHERE e.key = 'additionalData' LIMIT 1), 9223372036854775807)) x) END || '}')::json, NULL::text FROM w WHERE w."changed" RETURNING "id", "event_id"),
w_queued AS (INSERT INTO webhook_events_undispatched (id, event_id) SELECT id, event_id FROM w_outbox),
(SELECT pg_notify('wharf_webhook_events', '') FROM w_outbox WHERE $4::boolean LIMIT 1) AS "w_notified"
