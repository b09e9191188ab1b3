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

/**
 * One statement (so one round trip and one atomic commit) for a batch of attempts: the request-log rows,
 * the deliveries' new states and the endpoints' health. Endpoint rows are locked in uuid order first, so
 * batches committing in parallel cannot deadlock on them, and only endpoints whose health changes are
 * written. Health: a success clears `failing_since`; a 410 disables at once; failing without a single
 * success for longer than the configured window disables automatically.
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
    next_attempt_at = now() + b.next_attempt_in_ms * interval '1 millisecond'
  FROM batch b
  -- = ANY($5) makes these index lookups: the cached plan cannot know the batch size and would scan the table.
  WHERE d.uuid = ANY($5::uuid[]) AND d.uuid = b.webhook_delivery_uuid
), health AS (
  SELECT h.uuid, h.change FROM unnest($2::uuid[], $3::text[]) AS h(uuid, change)
), locked AS (
  SELECT ep.uuid, h.change FROM webhook_endpoints ep JOIN health h ON h.uuid = ep.uuid
  WHERE h.change = 'gone' AND ep.status = 'enabled'
     OR h.change = 'healthy' AND ep.failing_since IS NOT NULL
     OR h.change = 'failing' AND (ep.failing_since IS NULL
        OR ep.status = 'enabled' AND ep.failing_since < now() - make_interval(days => $4))
  ORDER BY ep.uuid FOR UPDATE OF ep
)
UPDATE webhook_endpoints ep SET
  failing_since = CASE l.change WHEN 'healthy' THEN NULL ELSE COALESCE(ep.failing_since, now()) END,
  status = CASE WHEN l.change = 'gone' OR l.change = 'failing' AND ep.failing_since IS NOT NULL THEN 'disabled'
    ELSE ep.status END,
  disabled_at = CASE WHEN l.change = 'gone' OR l.change = 'failing' AND ep.failing_since IS NOT NULL THEN now()
    ELSE ep.disabled_at END,
  disabled_reason = CASE WHEN l.change = 'gone' THEN 'The endpoint answered 410 Gone.'
    WHEN l.change = 'failing' AND ep.failing_since IS NOT NULL
      THEN 'Deliveries failed without a success for ' || $4 || ' days.'
    ELSE ep.disabled_reason END,
  updated_at = CASE WHEN l.change = 'healthy' OR l.change = 'failing' AND ep.failing_since IS NULL THEN ep.updated_at
    ELSE now() END
FROM locked l WHERE ep.uuid = l.uuid`;

/** Per endpoint, the one health change this batch makes: a 410 wins, then any success, then failure. */
function healthChanges(records: AttemptRecord[]): Map<string, 'gone' | 'healthy' | 'failing'> {
  const changes = new Map<string, 'gone' | 'healthy' | 'failing'>();
  for (const { delivery, result } of records) {
    const current = changes.get(delivery.endpoint_uuid);
    if (result.response_status === 410) changes.set(delivery.endpoint_uuid, 'gone');
    else if (result.status === 'successful') {
      if (current !== 'gone') changes.set(delivery.endpoint_uuid, 'healthy');
    } else if (!current) changes.set(delivery.endpoint_uuid, 'failing');
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
      [...health.values()],
      config.webhooks.autoDisableAfterDays,
      records.map((r) => r.delivery.uuid),
    ]),
  );
}
