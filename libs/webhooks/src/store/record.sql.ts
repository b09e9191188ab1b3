import { attemptBatchRows } from './attempt-batch';
import { firstWaitingAt } from './admission.sql';
import { admitted, isIn, outcomeLiteral, stateAfter } from './delivery-state';
import { toUnadmitted } from './transitions.sql';
import { applyHealth } from './health.sql';
import { emitOperationalEvents } from './operational.sql';
import { NO_JOB, jobRows } from './job-rows.sql';
import { admitSuccessors } from './successors.sql';

/*
 * The record of a batch of attempts, in parts. Each part is one or more common table expressions of
 * RECORD_ATTEMPTS, named for its one job; they share `batch`, the attempts as rows (attempt-batch.ts).
 * Parameters: $1 the batch (JSON), $2/$3/$6 the endpoints' health changes and timeouts, $4 the auto-disable
 * window in days, $5 the batch's delivery uuids.
 */

/**
 * Part 1, the request log: one row per attempt. The body is read from the event (a job sends its event's
 * payload as stored), so the batch does not carry it back; only a body made for the endpoint (a thin
 * envelope) comes with the batch.
 */
export const logAttempts = () => `logs AS (
  INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt,
    url, request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
  SELECT company_uuid, webhook_endpoint_uuid, webhook_delivery_uuid, event_id, event, attempt, url, request_headers,
    coalesce(batch.request_body, (SELECT e.payload::text FROM webhook_events e WHERE e.event_id = batch.event_id)),
    response_status, response_headers,
    response_body, duration_ms, error, status, sent_at
  FROM batch
)`;

/**
 * Part 2, the deliveries' new states: each attempt takes its delivery out of the queue window. Retrying
 * waits until due and is admitted again, failed is kept for recover, delivered is deleted (its attempts are
 * in the log; a resend makes it again). Only an admitted delivery moves: a stale duplicate job (re-run
 * after a crash) is logged, no more. `settled` names the deliveries finished for good, `finished` counts,
 * per endpoint, the places freed.
 */
export const settleDeliveries = () => `retried AS (
  UPDATE webhook_deliveries d SET ${toUnadmitted(stateAfter('b.outcome'))}, attempts = b.attempt, last_attempt_at = now(),
    updated_at = now(), next_attempt_at = now() + b.next_attempt_in_ms * interval '1 millisecond'
  FROM batch b
  -- = ANY($5) makes these index look-ups: the cached plan cannot know the batch size and would scan the table.
  WHERE d.uuid = ANY($5::uuid[]) AND d.uuid = b.webhook_delivery_uuid AND ${admitted('d')}
    AND b.outcome <> ${outcomeLiteral('successful')}
  RETURNING d.webhook_endpoint_uuid, d.uuid, d.status
), delivered AS (
  -- A delete writes no index entries, where an update writes a row version into every index of the table.
  -- An array, not a join with batch: a generic plan estimating one row read batch again per deleted row.
  DELETE FROM webhook_deliveries d
  WHERE d.uuid = ANY(ARRAY(SELECT b.webhook_delivery_uuid FROM batch b WHERE b.outcome = ${outcomeLiteral('successful')}))
    AND ${admitted('d')}
  RETURNING d.webhook_endpoint_uuid, d.uuid
), settled AS (
  -- Those this statement finished for good (as rows, not outcomes: a stale duplicate's changes nothing).
  SELECT uuid FROM delivered UNION ALL SELECT r.uuid FROM retried r WHERE ${isIn('r', 'failed')}
), finished AS (
  SELECT webhook_endpoint_uuid AS endpoint, count(*)::int AS n
  FROM (SELECT webhook_endpoint_uuid FROM retried UNION ALL SELECT webhook_endpoint_uuid FROM delivered) f
  GROUP BY 1
)`;

/**
 * One statement (one round trip, one atomic commit) for a batch of attempts: the log, the deliveries' new
 * states, successors admitted into the freed places, the endpoints' health and the operational events it
 * makes (into the outbox). Returns the successors' job
 * rows and, for an endpoint that got fewer successors than places it freed while due deliveries still wait
 * (held back by ordering or locked), a row naming it for the admitter.
 */
export const RECORD_ATTEMPTS = `
WITH batch AS (
  ${attemptBatchRows('$1')}
), ${logAttempts()}, ${settleDeliveries()}, ${admitSuccessors()}, ${applyHealth()},
  ${emitOperationalEvents()}
SELECT j.*, NULL::uuid AS more FROM (${jobRows('admitted')}) j
UNION ALL
SELECT ${NO_JOB}, f.endpoint FROM finished f
CROSS JOIN LATERAL (SELECT count(*) AS n FROM successor s WHERE s.endpoint = f.endpoint) got
WHERE f.n > got.n AND ${firstWaitingAt('f.endpoint', 'got.n')} <= now()`;
