WITH batch AS (
  SELECT x.a AS company_uuid, x.b AS webhook_endpoint_uuid, x.c AS webhook_delivery_uuid, x.d AS event_id, x.e AS event, x.f AS attempt, x.g AS url, x.h AS request_headers, x.i AS response_status, x.j AS response_headers, x.k AS response_body, x.l AS duration_ms, x.m AS error, x.n AS status, x.o AS sent_at, x.p AS outcome, x.q AS next_attempt_in_ms, x.r AS request_body
  FROM jsonb_to_recordset($1::jsonb)
  AS x(a uuid, b uuid, c uuid, d text, e text, f int, g text, h jsonb, i int, j jsonb, k text, l int, m text, n text, o timestamptz, p text, q float8, r text)
), logs AS (
  INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt,
    url, request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
  SELECT company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt, url, request_headers,
    coalesce(batch.request_body, (SELECT e.payload::text FROM webhook_events e WHERE e.event_id = batch.event_id)),
    response_status, response_headers,
    response_body, duration_ms, error, status, sent_at
  FROM batch
), retried AS (
  UPDATE webhook_deliveries d SET status = CASE b.outcome WHEN 'retrying' THEN 'retrying' WHEN 'failed' THEN 'failed' END, admitted_at = NULL, admission = NULL, attempts = b.attempt, last_attempt_at = now(),
    updated_at = now(), next_attempt_at = now() + b.next_attempt_in_ms * interval '1 millisecond'
  FROM batch b
  -- = ANY($5) makes these index look-ups: the cached plan cannot know the batch size and would scan the table.
  WHERE d.uuid = ANY($5::uuid[]) AND d.uuid = b.webhook_delivery_uuid AND d.status = 'admitted'
    AND b.outcome <> 'successful'
  RETURNING d.webhook_endpoint_uuid, d.uuid, d.status
), delivered AS (
  -- A delete writes no index entries, where an update writes a row version into every index of the table.
  -- An array, not a join with batch: a generic plan estimating one row read batch again per deleted row.
  DELETE FROM webhook_deliveries d
  WHERE d.uuid = ANY(ARRAY(SELECT b.webhook_delivery_uuid FROM batch b WHERE b.outcome = 'successful'))
    AND d.status = 'admitted'
  RETURNING d.webhook_endpoint_uuid, d.uuid
), settled AS (
  -- Those this statement finished for good (as rows, not outcomes: a stale duplicate's changes nothing).
  SELECT uuid FROM delivered UNION ALL SELECT r.uuid FROM retried r WHERE r.status = 'failed'
), finished AS (
  SELECT webhook_endpoint_uuid AS endpoint, count(*)::int AS n
  FROM (SELECT webhook_endpoint_uuid FROM retried UNION ALL SELECT webhook_endpoint_uuid FROM delivered) f
  GROUP BY 1
), pace AS (
  SELECT webhook_endpoint_uuid AS endpoint,
    bool_and(status = 'successful' AND duration_ms <= 100) AS fast
  FROM batch GROUP BY 1
), successor AS (
  SELECT w.uuid, f.endpoint, (CASE WHEN ep.throttled THEN 1 ELSE ep.max_in_flight END) AS cap FROM finished f
  JOIN webhook_endpoints ep ON ep.uuid = f.endpoint AND ep.status = 'enabled'
  JOIN pace ON pace.endpoint = f.endpoint
  CROSS JOIN LATERAL (
    SELECT d.uuid FROM webhook_deliveries d
    WHERE d.webhook_endpoint_uuid = f.endpoint AND d.status IN ('waiting', 'retrying') AND d.next_attempt_at <= now()
      AND (NOT ep.ordering = 'entity' OR d.entity_key IS NULL OR d.event_seq < (SELECT coalesce(min(id), 9223372036854775807) FROM webhook_events_undispatched) AND NOT EXISTS (
     SELECT 1 FROM webhook_deliveries p
     WHERE p.webhook_endpoint_uuid = d.webhook_endpoint_uuid AND p.entity_key = d.entity_key
       AND p.status <> 'failed' AND p.event_seq < d.event_seq AND NOT p.uuid = ANY(ARRAY(SELECT s.uuid FROM settled s))))
    ORDER BY d.next_attempt_at
    -- Every finished delivery counted as admitted still (this statement's snapshot), so added back.
    LIMIT greatest(0, ((CASE WHEN ep.throttled THEN 1 ELSE ep.max_in_flight END) * CASE WHEN pace.fast AND ep.rate_limit_per_second IS NULL THEN 8 ELSE 1 END) - (SELECT count(*) FROM webhook_deliveries counted
    WHERE counted.webhook_endpoint_uuid = f.endpoint AND counted.status = 'admitted')::int + f.n)
    FOR UPDATE OF d SKIP LOCKED
  ) w
  WHERE NOT EXISTS (SELECT 1 FROM unnest($2::uuid[], $3::text[]) AS g(uuid, change) WHERE g.uuid = f.endpoint AND g.change = 'gone')
), admitted AS (
  -- An array, not a join: the generic plan cannot know how many successors there are.
  UPDATE webhook_deliveries d SET status = 'admitted', admitted_at = now(), admission = ((SELECT nextval('webhook_admission_seq')) * 1024 + c.chunk)
  FROM (SELECT s.uuid, (row_number() OVER (PARTITION BY s.endpoint ORDER BY s.uuid) - 1) / s.cap AS chunk
        FROM successor s) c
  WHERE d.uuid = ANY(ARRAY(SELECT s.uuid FROM successor s)) AND d.uuid = c.uuid
  RETURNING d.uuid, d.webhook_endpoint_uuid, d.company_uuid, d.attempts, d.event_id, d.admission
), health AS (
  SELECT h.uuid, h.change, h.timeouts FROM unnest($2::uuid[], $3::text[], $6::int[]) AS h(uuid, change, timeouts)
), locked AS (
  SELECT ep.uuid, h.change, h.timeouts, ep.status AS was_status, ep.throttled AS was_throttled,
    ep.failing_since AS was_failing_since,
    h.change = 'failing' AND ep.status = 'enabled' AND ep.failing_since < now() - make_interval(days => $4) AS expired
  FROM webhook_endpoints ep JOIN health h ON h.uuid = ep.uuid
  -- = ANY($2) here and below: looked up by key, never a walk of every endpoint joined to health.
  WHERE ep.uuid = ANY($2::uuid[]) AND (h.change = 'gone' AND ep.status = 'enabled'
     OR h.change = 'healthy' AND (ep.failing_since IS NOT NULL OR ep.consecutive_timeouts > 0)
     OR h.change = 'failing' AND (ep.failing_since IS NULL OR h.timeouts > 0
        OR ep.status = 'enabled' AND ep.failing_since < now() - make_interval(days => $4)))
  ORDER BY ep.uuid FOR UPDATE OF ep
), endpoint_health AS (
  UPDATE webhook_endpoints ep SET
  consecutive_timeouts = CASE WHEN l.change = 'healthy' THEN 0 ELSE ep.consecutive_timeouts + l.timeouts END,
  throttled = CASE WHEN l.change = 'healthy' THEN false
    WHEN ep.consecutive_timeouts + l.timeouts >= 3 THEN true ELSE ep.throttled END,
  throttled_reason = CASE WHEN l.change = 'healthy' THEN NULL
    WHEN ep.consecutive_timeouts + l.timeouts >= 3
      THEN (ep.consecutive_timeouts + l.timeouts) || ' attempts in a row timed out: sending one at a time until one succeeds.'
    ELSE ep.throttled_reason END,
  failing_since = CASE l.change WHEN 'healthy' THEN NULL ELSE COALESCE(ep.failing_since, now()) END,
  status = CASE WHEN l.change = 'gone' OR l.expired THEN 'disabled' ELSE ep.status END,
  disabled_at = CASE WHEN l.change = 'gone' OR l.expired THEN now() ELSE ep.disabled_at END,
  disabled_reason = CASE WHEN l.change = 'gone' THEN 'The endpoint answered 410 Gone.'
    WHEN l.expired THEN 'Deliveries failed without a success for ' || $4 || ' days.'
    ELSE ep.disabled_reason END,
  -- Only disabling bumps updated_at (the version workers reload a cached endpoint on).
  updated_at = CASE WHEN l.change = 'gone' OR l.expired THEN now() ELSE ep.updated_at END
FROM locked l WHERE ep.uuid = ANY($2::uuid[]) AND ep.uuid = l.uuid
RETURNING ep.uuid, ep.company_uuid, ep.url, ep.status, ep.throttled, ep.disabled_reason, ep.throttled_reason,
  l.change, l.was_status, l.was_throttled, l.was_failing_since
),
  operational AS (
  SELECT h.company_uuid, 'endpoint.disabled' AS name,
    json_build_object('id', h.uuid,
    'webhook_endpoint_uuid', h.uuid, 'url', h.url, 'status', h.status, 'reason', CASE WHEN h.change = 'gone' THEN 'gone_410' ELSE 'failing_since' END, 'message', h.disabled_reason) AS data
  FROM endpoint_health h WHERE h.was_status = 'enabled' AND h.status = 'disabled'
  UNION ALL
  SELECT h.company_uuid, CASE WHEN h.throttled THEN 'endpoint.throttled' ELSE 'endpoint.unthrottled' END,
    json_build_object('id', h.uuid,
    'webhook_endpoint_uuid', h.uuid, 'url', h.url, 'status', h.status, 'reason', CASE WHEN h.throttled THEN 'timeouts' ELSE 'success' END, 'message', coalesce(h.throttled_reason, 'An attempt succeeded: no longer throttled.'))
  FROM endpoint_health h WHERE h.throttled <> h.was_throttled
  UNION ALL
  SELECT h.company_uuid, 'endpoint.recovered',
    json_build_object('id', h.uuid,
    'webhook_endpoint_uuid', h.uuid, 'url', h.url, 'status', h.status, 'reason', 'success', 'message', 'An attempt succeeded after failures since ' || h.was_failing_since)
  FROM endpoint_health h WHERE h.change = 'healthy' AND h.was_failing_since IS NOT NULL
  UNION ALL
  SELECT b.company_uuid, 'delivery.exhausted', json_build_object('id', r.uuid,
    'webhook_endpoint_uuid', b.webhook_endpoint_uuid, 'event_id', b.event_id, 'event', b.event,
    'attempts', b.attempt, 'last_response_status', b.response_status, 'last_error', b.error)
  FROM retried r JOIN batch b ON b.webhook_delivery_uuid = r.uuid
  WHERE r.status = 'failed' AND NOT b.event = ANY('{endpoint.disabled,endpoint.enabled,endpoint.throttled,endpoint.unthrottled,endpoint.recovered,delivery.exhausted}'::text[])
), operational_events AS (
  INSERT INTO webhook_events (event_id, company_uuid, name, payload)
  SELECT o.event_id, o.company_uuid, o.name, ('{"id":' || to_json((o.event_id)::text)::text || ',"api_version":"v1","event":' || to_json((o.name)::text)::text
    || ',"created_at":' || to_json((to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text)::text || ',"data":' || CASE WHEN left(o.data::text, 6) = '{"id":' AND strpos(o.data::text, '"additionalData":') = 0
      THEN left(o.data::text, -1) || ',"additionalData":' || '{}' || '}' ELSE (SELECT '{' || string_agg(to_json(x.k)::text || ':' || x.v, ',' ORDER BY x.o) || '}' FROM (
      SELECT 'id' AS k, i.v, 0::bigint AS o FROM (SELECT (CASE WHEN EXISTS (SELECT 1 FROM json_object_keys((o.data::text)::json) k WHERE k = 'id')
          THEN (o.data::text)::json->'id' WHEN json_typeof((o.data::text)::json->'uuid') <> 'null' THEN (o.data::text)::json->'uuid' END)::text AS v) i WHERE i.v IS NOT NULL
      UNION ALL SELECT e.key, e.value::text, e.n FROM json_each((o.data::text)::json) WITH ORDINALITY e(key, value, n)
        WHERE e.key NOT IN ('id', 'additionalData')
      UNION ALL SELECT 'additionalData', '{}', COALESCE((SELECT e.n FROM json_each((o.data::text)::json) WITH ORDINALITY e(key, value, n)
        WHERE e.key = 'additionalData' LIMIT 1), 9223372036854775807)) x) END || '}')::json
  FROM (SELECT ('evt_' || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 2821109907456::bigint % 36)::int + 1, 1) || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 78364164096::bigint % 36)::int + 1, 1) || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 2176782336::bigint % 36)::int + 1, 1) || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 60466176::bigint % 36)::int + 1, 1) || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 1679616::bigint % 36)::int + 1, 1) || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 46656::bigint % 36)::int + 1, 1) || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 1296::bigint % 36)::int + 1, 1) || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 36::bigint % 36)::int + 1, 1) || substr('0123456789abcdefghijklmnopqrstuvwxyz', ((extract(epoch FROM now()) * 1000)::bigint / 1::bigint % 36)::int + 1, 1) || left(replace(gen_random_uuid()::text, '-', ''), 20)) AS event_id, op.* FROM operational op) o
  RETURNING id, event_id
), operational_queued AS (
  -- With its event id, which names its outbox partition for fan-out's look-up.
  INSERT INTO webhook_events_undispatched (id, event_id)
  SELECT e.id, e.event_id FROM operational_events e CROSS JOIN LATERAL (SELECT pg_notify('wharf_webhook_events', '')) n
)
SELECT j.*, NULL::uuid AS more FROM (
SELECT a.uuid, a.webhook_endpoint_uuid, a.company_uuid, a.attempts, e.event_id, e.name, e.payload::text AS body, (extract(epoch FROM ep.updated_at) * 1000)::bigint AS version, a.admission, ep.rate_limit_per_second IS NOT NULL AS limited, (CASE WHEN ep.throttled THEN 1 ELSE ep.max_in_flight END) AS cap, e.trace_context
FROM admitted a
-- Its event: one look-up by event id, which names the outbox partition (as a join, a partition with no
-- statistics could be planned as a walk of its whole index, filtered).
CROSS JOIN LATERAL (
  SELECT e.event_id, e.name, e.payload, e.trace_context FROM webhook_events e WHERE e.event_id = a.event_id LIMIT 1
) e
-- A look-up by key per row (LIMIT 1 keeps the planner from flattening it into a join, which a generic plan
-- made with few endpoints turned into a walk of the whole endpoint index per admitted delivery).
CROSS JOIN LATERAL (
  SELECT ep.updated_at, ep.rate_limit_per_second, ep.throttled, ep.max_in_flight FROM webhook_endpoints ep
  WHERE ep.uuid = a.webhook_endpoint_uuid LIMIT 1
) ep) j
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, f.endpoint FROM finished f
CROSS JOIN LATERAL (SELECT count(*) AS n FROM successor s WHERE s.endpoint = f.endpoint) got
WHERE f.n > got.n AND (SELECT w.next_attempt_at FROM webhook_deliveries w
    WHERE w.webhook_endpoint_uuid = f.endpoint AND w.status IN ('waiting', 'retrying')
    ORDER BY w.next_attempt_at OFFSET got.n LIMIT 1) <= now()
