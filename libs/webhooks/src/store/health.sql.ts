import { THROTTLE_AFTER_TIMEOUTS } from '../tuning';

/**
 * Part 4 of the record (see record.sql.ts), the endpoints' health, from the change each endpoint's attempts
 * in the batch make ($2 endpoints, $3 change: gone | healthy | failing, $6 timeouts; see healthChanges). A
 * success clears `failing_since` and throttling; a 410 disables at once; failing without a single success
 * for longer than $4 days disables; THROTTLE_AFTER_TIMEOUTS timeouts with no success between throttle the
 * endpoint to one attempt at a time. Rows are locked in uuid order, so records committing in parallel
 * cannot deadlock on them, and only endpoints whose health changes are written. `endpoint_health` returns
 * each written endpoint before and after, for the operational events (operational.sql.ts).
 */
export const applyHealth = () => `health AS (
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
    WHEN ep.consecutive_timeouts + l.timeouts >= ${THROTTLE_AFTER_TIMEOUTS} THEN true ELSE ep.throttled END,
  throttled_reason = CASE WHEN l.change = 'healthy' THEN NULL
    WHEN ep.consecutive_timeouts + l.timeouts >= ${THROTTLE_AFTER_TIMEOUTS}
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
)`;
