import { AppConfig, poolOf, prepared } from '@wharf/core';
import { DataSource } from 'typeorm';
import { Attempt } from '../delivery/webhook-sender';

export interface AttemptRecord {
  delivery: {
    uuid: string;
    company_uuid: string;
    endpoint_uuid: string;
    event_id: string;
    event: string;
  };
  attempt: number;
  result: Attempt;
  /** The delivery's state after this attempt. */
  outcome: 'successful' | 'failed' | 'pending';
  nextAttemptInMs: number;
}

/** Timeouts in a row after which an endpoint is throttled to one attempt in flight. */
export const THROTTLE_AFTER_TIMEOUTS = 3;

/**
 * One statement (so one round trip and one atomic commit) for a batch of attempts: the request-log rows,
 * the deliveries' new states (each attempt frees its endpoint slot: a delivery to retry waits in
 * PostgreSQL until due and admitted again) and the endpoints' health. Endpoint rows are locked in uuid
 * order first, so batches committing in parallel cannot deadlock on them, and only endpoints whose health
 * changes are written. Health: a success clears `failing_since` and any throttling; a 410 disables at
 * once; failing without a single success for longer than the configured window disables automatically;
 * THROTTLE_AFTER_TIMEOUTS timeouts without a success between them throttle the endpoint.
 */
const RECORD_ATTEMPTS = `
WITH batch AS (
  SELECT * FROM json_to_recordset($1::json) AS x(company_uuid uuid, webhook_endpoint_uuid uuid, webhook_delivery_uuid uuid,
    event_id text, event text, attempt int, url text, request_headers jsonb, request_body text, response_status int,
    response_headers jsonb, response_body text, duration_ms int, error text, status text, sent_at timestamptz,
    outcome text, next_attempt_in_ms float8)
), logs AS (
  INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt,
    url, request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
  SELECT company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt, url, request_headers,
    request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at
  FROM batch
), deliveries AS (
  UPDATE webhook_deliveries d SET attempts = b.attempt, status = b.outcome, last_attempt_at = now(), updated_at = now(),
    next_attempt_at = now() + b.next_attempt_in_ms * interval '1 millisecond', admitted_at = NULL
  FROM batch b
  -- = ANY($5) makes these index lookups: the cached plan cannot know the batch size and would scan the table.
  WHERE d.uuid = ANY($5::uuid[]) AND d.uuid = b.webhook_delivery_uuid
), health AS (
  SELECT h.uuid, h.change, h.timeouts FROM unnest($2::uuid[], $3::text[], $6::int[]) AS h(uuid, change, timeouts)
), locked AS (
  SELECT ep.uuid, h.change, h.timeouts,
    h.change = 'failing' AND ep.status = 'enabled' AND ep.failing_since < now() - make_interval(days => $4) AS expired
  FROM webhook_endpoints ep JOIN health h ON h.uuid = ep.uuid
  WHERE h.change = 'gone' AND ep.status = 'enabled'
     OR h.change = 'healthy' AND (ep.failing_since IS NOT NULL OR ep.consecutive_timeouts > 0)
     OR h.change = 'failing' AND (ep.failing_since IS NULL OR h.timeouts > 0
        OR ep.status = 'enabled' AND ep.failing_since < now() - make_interval(days => $4))
  ORDER BY ep.uuid FOR UPDATE OF ep
)
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
FROM locked l WHERE ep.uuid = l.uuid`;

type HealthChange = 'gone' | 'healthy' | 'failing';

/**
 * Per endpoint, the one health change this batch makes (a 410 wins, then any success, then failure) and
 * how many of its attempts timed out.
 */
export function healthChanges(
  records: AttemptRecord[],
): Map<string, { change: HealthChange; timeouts: number }> {
  const changes = new Map<string, { change: HealthChange; timeouts: number }>();
  for (const { delivery, result } of records) {
    let health = changes.get(delivery.endpoint_uuid);
    if (!health) changes.set(delivery.endpoint_uuid, (health = { change: 'failing', timeouts: 0 }));
    if (result.response_status === 410) health.change = 'gone';
    else if (result.status === 'successful') {
      if (health.change !== 'gone') health.change = 'healthy';
    }
    if (result.error === 'timeout') health.timeouts++;
  }
  return changes;
}

/** Writes a batch of attempts (see RECORD_ATTEMPTS) in one atomic statement. */
export async function recordAttempts(
  dataSource: DataSource,
  config: AppConfig,
  records: AttemptRecord[],
): Promise<void> {
  const batch = records.map(({ delivery, attempt, result, outcome, nextAttemptInMs }) => ({
    company_uuid: delivery.company_uuid,
    webhook_endpoint_uuid: delivery.endpoint_uuid,
    webhook_delivery_uuid: delivery.uuid,
    event_id: delivery.event_id,
    event: delivery.event,
    attempt,
    url: result.url,
    request_headers: result.request_headers,
    request_body: result.request_body,
    response_status: result.response_status,
    response_headers: result.response_headers,
    response_body: result.response_body,
    duration_ms: result.duration_ms,
    error: result.error,
    status: result.status,
    sent_at: result.sent_at,
    outcome,
    next_attempt_in_ms: nextAttemptInMs,
  }));
  const health = healthChanges(records);
  // One JSON document rather than an array per column: JSON.stringify is native, pg's array quoting is not.
  await poolOf(dataSource).query(
    prepared(RECORD_ATTEMPTS, [
      JSON.stringify(batch),
      [...health.keys()],
      [...health.values()].map((h) => h.change),
      config.webhooks.autoDisableAfterDays,
      records.map((r) => r.delivery.uuid),
      [...health.values()].map((h) => h.timeouts),
    ]),
  );
}
