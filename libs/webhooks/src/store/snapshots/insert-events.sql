WITH inserted AS (
    INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload", "trace_context")
    SELECT t.e, $1::uuid, t.n, ('{"id":' || to_json((t.e)::text)::text || ',"api_version":"v1","event":' || to_json((t.n)::text)::text
    || ',"created_at":' || to_json(($5)::text)::text || ',"data":' || CASE WHEN left(t.r, 6) = '{"id":' AND strpos(t.r, '"additionalData":') = 0
      THEN left(t.r, -1) || ',"additionalData":' || t.a || '}' ELSE (SELECT '{' || string_agg(to_json(x.k)::text || ':' || x.v, ',' ORDER BY x.o) || '}' FROM (
      SELECT 'id' AS k, i.v, 0::bigint AS o FROM (SELECT (CASE WHEN EXISTS (SELECT 1 FROM json_object_keys((t.r)::json) k WHERE k = 'id')
          THEN (t.r)::json->'id' WHEN json_typeof((t.r)::json->'uuid') <> 'null' THEN (t.r)::json->'uuid' END)::text AS v) i WHERE i.v IS NOT NULL
      UNION ALL SELECT e.key, e.value::text, e.n FROM json_each((t.r)::json) WITH ORDINALITY e(key, value, n)
        WHERE e.key NOT IN ('id', 'additionalData')
      UNION ALL SELECT 'additionalData', t.a, COALESCE((SELECT e.n FROM json_each((t.r)::json) WITH ORDINALITY e(key, value, n)
        WHERE e.key = 'additionalData' LIMIT 1), 9223372036854775807)) x) END || '}')::json, $8::text
    FROM unnest($2::text[], $3::text[], $4::text[], $6::text[]) AS t(e, n, r, a)
    RETURNING "id", "event_id"
  ), queued AS (INSERT INTO webhook_events_undispatched (id, event_id) SELECT id, event_id FROM inserted)
  SELECT pg_notify('wharf_webhook_events', '') FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row WHERE $7::boolean
