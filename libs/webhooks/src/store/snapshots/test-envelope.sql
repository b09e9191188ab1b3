SELECT ('{"id":' || to_json(($1::text)::text)::text || ',"api_version":"v1","event":' || to_json(($2::text)::text)::text
    || ',"created_at":' || to_json(($3::text)::text)::text || ',"data":' || CASE WHEN left($4::text, 6) = '{"id":' AND strpos($4::text, '"additionalData":') = 0
      THEN left($4::text, -1) || ',"additionalData":' || $5::text || '}' ELSE (SELECT '{' || string_agg(to_json(x.k)::text || ':' || x.v, ',' ORDER BY x.o) || '}' FROM (
      SELECT 'id' AS k, i.v, 0::bigint AS o FROM (SELECT (CASE WHEN EXISTS (SELECT 1 FROM json_object_keys(($4::text)::json) k WHERE k = 'id')
          THEN ($4::text)::json->'id' WHEN json_typeof(($4::text)::json->'uuid') <> 'null' THEN ($4::text)::json->'uuid' END)::text AS v) i WHERE i.v IS NOT NULL
      UNION ALL SELECT e.key, e.value::text, e.n FROM json_each(($4::text)::json) WITH ORDINALITY e(key, value, n)
        WHERE e.key NOT IN ('id', 'additionalData')
      UNION ALL SELECT 'additionalData', $5::text, COALESCE((SELECT e.n FROM json_each(($4::text)::json) WITH ORDINALITY e(key, value, n)
        WHERE e.key = 'additionalData' LIMIT 1), 9223372036854775807)) x) END || '}')::json::text AS body
