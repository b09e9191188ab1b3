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
WITH logs AS (
  INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt,
    url, request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::int[], $7::text[], $8::jsonb[],
    $9::text[], $10::int[], $11::jsonb[], $12::text[], $13::int[], $14::text[], $15::text[], $16::timestamptz[])
), deliveries AS (
  UPDATE webhook_deliveries d SET attempts = v.attempt, status = v.outcome, last_attempt_at = now(), updated_at = now(),
    next_attempt_at = now() + v.ms * interval '1 millisecond'
  FROM unnest($3::uuid[], $6::int[], $17::text[], $18::float8[]) AS v(uuid, attempt, outcome, ms)
  WHERE d.uuid = v.uuid
), health AS (
  SELECT h.uuid, h.change FROM unnest($19::uuid[], $20::text[]) AS h(uuid, change)
), locked AS (
  SELECT ep.uuid, h.change FROM webhook_endpoints ep JOIN health h ON h.uuid = ep.uuid
  WHERE h.change = 'gone' AND ep.status = 'enabled'
     OR h.change = 'healthy' AND ep.failing_since IS NOT NULL
     OR h.change = 'failing' AND (ep.failing_since IS NULL
        OR ep.status = 'enabled' AND ep.failing_since < now() - make_interval(days => $21))
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
      THEN 'Deliveries failed without a success for ' || $21 || ' days.'
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
  const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
  const json = (value: Record<string, string> | null) => (value ? JSON.stringify(value) : null);
  const health = healthChanges(records);
  await poolOf(dataSource).query(
    prepared(RECORD_ATTEMPTS, [
      column((r) => r.delivery.company_uuid),
      column((r) => r.delivery.endpoint_uuid),
      column((r) => r.delivery.uuid),
      column((r) => r.delivery.event_id),
      column((r) => r.delivery.event),
      column((r) => r.attempt),
      column((r) => r.result.url),
      column((r) => json(r.result.request_headers)),
      column((r) => r.result.request_body),
      column((r) => r.result.response_status),
      column((r) => json(r.result.response_headers)),
      column((r) => r.result.response_body),
      column((r) => r.result.duration_ms),
      column((r) => r.result.error),
      column((r) => r.result.status),
      column((r) => r.result.sent_at),
      column((r) => r.outcome),
      column((r) => r.nextAttemptInMs),
      [...health.keys()],
      [...health.values()],
      config.webhooks.autoDisableAfterDays,
    ]),
  );
}
