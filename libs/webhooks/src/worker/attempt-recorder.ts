import { AppConfig, poolOf, prepared } from '@wharf/core';
import { DataSource } from 'typeorm';
import { DeliveryRow } from '../delivery/delivery-queue';
import { Attempt } from '../delivery/webhook-sender';
import { AttemptBatchRow, attemptBatchJson, attemptBatchRows } from './attempt-batch';
import {
  Admission,
  NOT_ADMITTED,
  NO_JOB,
  admitNow,
  admittedCount,
  effectiveCap,
  firstWaitingAt,
  inOrder,
  jobRows,
  splitAdmission,
  waitingDue,
} from './admission-sql';

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
 * An endpoint whose attempts in a batch were all answered 2xx within this is refilled to PREFETCH_CAPS times
 * its cap: the batch jobs beyond the first cap's are fetched while it sends, and wait in place for its
 * leases (see EndpointSendLeases), each holding a worker slot meanwhile: the jobs are served in turn, so the
 * k-th waits for about k - 1 rounds of these answers (up to PREFETCH_CAPS - 1).
 */
export const PREFETCH_BELOW_MS = 100;

/**
 * How many caps' worth of a fast endpoint's deliveries are admitted: one sending, the rest queued behind it,
 * so that the next job is already fetched when a recording statement (which admits the successors) runs
 * late: a sent delivery counts as admitted until its record commits, so the records waiting behind that
 * statement use up admitted places. bench:webhooks' drain on one fast machine, alternating one-round runs:
 * 0.670-0.763 of the floor at four caps (median 0.733 of 8 runs), 0.737-0.878 at eight (median 0.78, higher in
 * 7 of 8 pairs), 0.713-0.769 at sixteen (PostgreSQL ~14 us more per delivery: it counts a larger admitted
 * set). Earlier, on another machine: 0.65-0.69 at two caps against 0.67-0.72 at four.
 */
export const PREFETCH_CAPS = 8;

/** Timeouts in a row after which an endpoint is throttled to one attempt in flight. */
export const THROTTLE_AFTER_TIMEOUTS = 3;

/**
 * One statement (so one round trip and one atomic commit) for a batch of attempts: the request-log rows
 * (each request body read from its event: the body a job sends is its event's payload as stored, see
 * jobRows, so the batch does not carry it back; it was most of the batch's JSON, which PostgreSQL parses),
 * the deliveries' new states (each attempt frees its place in the queue: a delivery to retry waits in
 * PostgreSQL until due and admitted again, a failed one is kept for recovery, a delivered one is deleted),
 * a successor admitted into each freed slot, and the endpoints' health.
 *
 * Successors: for each endpoint, due waiting deliveries (FOR UPDATE SKIP LOCKED, so concurrent batches
 * and the DeliveryAdmitter never admit the same one), in the admitter's order and by its ordering rules,
 * counting the deliveries this batch settles as no longer pending, up to its cap admitted (1 while
 * throttled), or PREFETCH_CAPS times that when this batch's attempts at it were all answered fast
 * (PREFETCH_BELOW_MS): the leases, not the admitted count, bound its sends at once. No lock: two batches of one endpoint
 * committing at once in two workers can each refill from the same count, which overfills its queue (at
 * most twice over), never its sends. None are admitted to an endpoint this batch disables. The statement returns the successors' job data, and, for an endpoint that got fewer successors
 * than it freed slots while due deliveries still wait (held back by ordering or locked), a row naming it
 * for the DeliveryAdmitter.
 *
 * Health: endpoint rows are locked in uuid order first, so batches committing in parallel cannot deadlock
 * on them, and only endpoints whose health changes are written. A success clears `failing_since` and any throttling; a 410 disables at
 * once; failing without a single success for longer than the configured window disables automatically;
 * THROTTLE_AFTER_TIMEOUTS timeouts without a success between them throttle the endpoint.
 */
export const RECORD_ATTEMPTS = `
WITH batch AS (
  ${attemptBatchRows('$1')}
), logs AS (
  INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt,
    url, request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
  SELECT company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt, url, request_headers,
    (SELECT e.payload::text FROM webhook_events e WHERE e.event_id = batch.event_id), response_status, response_headers,
    response_body, duration_ms, error, status, sent_at
  FROM batch
), retried AS (
  UPDATE webhook_deliveries d SET attempts = b.attempt, status = b.outcome, last_attempt_at = now(), updated_at = now(),
    next_attempt_at = now() + b.next_attempt_in_ms * interval '1 millisecond', ${NOT_ADMITTED}
  FROM batch b
  -- = ANY($5) makes these index lookups: the cached plan cannot know the batch size and would scan the table.
  -- Only an admitted delivery frees a slot: a stale duplicate job (re-run after a crash) is logged, no more.
  WHERE d.uuid = ANY($5::uuid[]) AND d.uuid = b.webhook_delivery_uuid AND d.admitted_at IS NOT NULL
    AND b.outcome <> 'successful'
  RETURNING d.webhook_endpoint_uuid
), delivered AS (
  -- A delivered delivery is done with: its attempts are in the log, and a resend puts it back (deliveryRequeue).
  -- A delete writes no index entries, where the update wrote a row version into every index of the table.
  -- An array, not a join with batch (as in admitted below): estimating one successful record, the generic
  -- plan read batch again for each deleted row (1.7 of ~5 ms of 50 records, in a drain's state).
  DELETE FROM webhook_deliveries d
  WHERE d.uuid = ANY(ARRAY(SELECT b.webhook_delivery_uuid FROM batch b WHERE b.outcome = 'successful'))
    AND d.admitted_at IS NOT NULL
  RETURNING d.webhook_endpoint_uuid
), deliveries AS (
  SELECT webhook_endpoint_uuid FROM retried UNION ALL SELECT webhook_endpoint_uuid FROM delivered
), finished AS (
  SELECT webhook_endpoint_uuid AS endpoint, count(*)::int AS n FROM deliveries GROUP BY 1
), pace AS (
  SELECT webhook_endpoint_uuid AS endpoint,
    bool_and(status = 'successful' AND duration_ms <= ${PREFETCH_BELOW_MS}) AS fast
  FROM batch GROUP BY 1
), successor AS (
  SELECT w.uuid, f.endpoint, ${effectiveCap('ep')} AS cap FROM finished f
  JOIN webhook_endpoints ep ON ep.uuid = f.endpoint AND ep.status = 'enabled'
  JOIN pace ON pace.endpoint = f.endpoint
  CROSS JOIN LATERAL (
    SELECT d.uuid FROM webhook_deliveries d
    WHERE d.webhook_endpoint_uuid = f.endpoint AND ${waitingDue('d')}
      AND ${inOrder('d', "ep.ordering = 'entity'", (p) => `${p}.uuid = ANY(ARRAY(SELECT s.webhook_delivery_uuid FROM batch s WHERE s.outcome <> 'pending'))`)}
    ORDER BY d.next_attempt_at
    -- Refills to the endpoint's cap, or PREFETCH_CAPS caps (one sending, the others fetched and waiting for
    -- leases) when its answers came fast and it has no rate limit.
    LIMIT greatest(0, ${effectiveCap('ep')} * CASE WHEN pace.fast AND ep.rate_limit_per_second IS NULL THEN ${PREFETCH_CAPS} ELSE 1 END
      - ${admittedCount('f.endpoint')} + f.n)
    FOR UPDATE OF d SKIP LOCKED
  ) w
  WHERE NOT EXISTS (SELECT 1 FROM unnest($2::uuid[], $3::text[]) AS g(uuid, change) WHERE g.uuid = f.endpoint AND g.change = 'gone')
), admitted AS (
  -- An array, not a join: the generic plan cannot know how many successors there are and, guessing
  -- hundreds, merge-joined them with a walk of the whole primary key (bench:webhooks: most of a batch's time).
  -- Each cap's worth of an endpoint's successors is a batch job of its own (the admission number names the
  -- job), so no job sends more than can be sent at once. The LIMIT above keeps them to at most PREFETCH_CAPS
  -- chunks (every finished delivery it adds back was admitted, so counted), within ADMISSION_CHUNKS.
  UPDATE webhook_deliveries d SET ${admitNow('c.chunk')}
  FROM (SELECT s.uuid, (row_number() OVER (PARTITION BY s.endpoint ORDER BY s.uuid) - 1) / s.cap AS chunk
        FROM successor s) c
  WHERE d.uuid = ANY(ARRAY(SELECT s.uuid FROM successor s)) AND d.uuid = c.uuid
  RETURNING d.uuid, d.webhook_endpoint_uuid, d.company_uuid, d.attempts, d.event_id, d.admitted_at, d.admission
), health AS (
  SELECT h.uuid, h.change, h.timeouts FROM unnest($2::uuid[], $3::text[], $6::int[]) AS h(uuid, change, timeouts)
), locked AS (
  SELECT ep.uuid, h.change, h.timeouts,
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
)
SELECT j.*, NULL::uuid AS more FROM (${jobRows('admitted')}) j
UNION ALL
SELECT ${NO_JOB}, f.endpoint FROM finished f
CROSS JOIN LATERAL (SELECT count(*) AS n FROM successor s WHERE s.endpoint = f.endpoint) got
WHERE f.n > got.n AND ${firstWaitingAt('f.endpoint', 'got.n')} <= now()`;

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
): Promise<Admission> {
  const batch = records.map(({ delivery, attempt, result, outcome, nextAttemptInMs }): AttemptBatchRow => ({
    company_uuid: delivery.company_uuid,
    webhook_endpoint_uuid: delivery.endpoint_uuid,
    webhook_delivery_uuid: delivery.uuid,
    event_id: delivery.event_id,
    event: delivery.event,
    attempt,
    url: result.url,
    request_headers: result.request_headers,
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
  // Read as jsonb, PostgreSQL parses it once; as json it was parsed on input, again by json_to_recordset,
  // and the headers a third time into their jsonb columns (a tenth of its CPU in bench:webhooks).
  const { rows } = await poolOf(dataSource).query<DeliveryRow & { more: string | null }>(
    prepared(RECORD_ATTEMPTS, [
      attemptBatchJson(batch),
      [...health.keys()],
      [...health.values()].map((h) => h.change),
      config.webhooks.autoDisableAfterDays,
      records.map((r) => r.delivery.uuid),
      [...health.values()].map((h) => h.timeouts),
    ]),
  );
  return splitAdmission(rows);
}
