import { inOrder, waitingDue, windowRoom, firstWaitingAt } from './admission.sql';
import { toAdmitted, toUnadmitted } from './transitions.sql';
import { admitted, stateLiteral, unadmitted } from './delivery-state';
import { ADMITTED_RETURNING, jobRows } from './job-rows.sql';

/**
 * Serialises admission per endpoint across every worker. Taken in uuid order (as the record does), and NO
 * KEY UPDATE so that fan-out's inserts (a foreign-key share lock) are never blocked.
 */
export const LOCK_ENDPOINTS = `SELECT uuid FROM webhook_endpoints WHERE uuid = ANY($1::uuid[]) ORDER BY uuid FOR NO KEY UPDATE`;

/**
 * Run after LOCK_ENDPOINTS as its own statement, so its snapshot sees every admission and record committed
 * before the lock was granted. Per endpoint: admits as many due unadmitted deliveries as its window has
 * room for, oldest due first, those of an ordered endpoint only in order (see inOrder). Due deliveries of an
 * endpoint that is no longer enabled fail, as their attempt would.
 */
export const ADMIT = `
WITH endpoint AS (
  SELECT ep.uuid, ep.status, ep.ordering = 'entity' AS ordered, ${windowRoom('ep')} AS free
  FROM webhook_endpoints ep WHERE ep.uuid = ANY($1::uuid[])
), picked AS (
  SELECT w.uuid FROM endpoint ep CROSS JOIN LATERAL (
    SELECT d.uuid FROM webhook_deliveries d
    WHERE d.webhook_endpoint_uuid = ep.uuid AND ${waitingDue('d')} AND ${inOrder('d', 'ep.ordered')}
    ORDER BY d.next_attempt_at LIMIT greatest(ep.free, 0)
  ) w WHERE ep.status = 'enabled' AND ep.free > 0
), admitted AS (
  -- An array, not a join: a generic plan cannot know how many there are.
  UPDATE webhook_deliveries d SET ${toAdmitted()}
  WHERE d.uuid = ANY(ARRAY(SELECT p.uuid FROM picked p)) AND ${unadmitted('d')}
  ${ADMITTED_RETURNING}
), dropped AS (
  -- An array of uuids found through the waiting index: a join here could plan as a scan of every delivery.
  UPDATE webhook_deliveries d SET ${toUnadmitted(stateLiteral('failed'))}, updated_at = now()
  WHERE d.uuid = ANY(ARRAY(
    SELECT w.uuid FROM endpoint ep CROSS JOIN LATERAL (
      SELECT w.uuid FROM webhook_deliveries w
      WHERE w.webhook_endpoint_uuid = ep.uuid AND ${waitingDue('w')} ORDER BY w.next_attempt_at
    ) w WHERE ep.status <> 'enabled'
  )) AND ${waitingDue('d')}
)
${jobRows('admitted')}`;

/**
 * Endpoints with a due unadmitted delivery, found by skipping through the waiting index one endpoint at a
 * time, so a backlog of one endpoint costs one index probe, not a scan.
 */
export const DUE_ENDPOINTS = `
WITH RECURSIVE endpoints AS (
  (SELECT webhook_endpoint_uuid AS uuid FROM webhook_deliveries w
   WHERE ${unadmitted('w')} ORDER BY webhook_endpoint_uuid LIMIT 1)
  UNION ALL
  SELECT (SELECT d.webhook_endpoint_uuid FROM webhook_deliveries d
          WHERE ${unadmitted('d')} AND d.webhook_endpoint_uuid > e.uuid
          ORDER BY d.webhook_endpoint_uuid LIMIT 1)
  FROM endpoints e WHERE e.uuid IS NOT NULL
)
SELECT e.uuid FROM endpoints e WHERE e.uuid IS NOT NULL AND ${firstWaitingAt('e.uuid')} <= now()`;

/** Admitted deliveries of an endpoint that is gone or disabled fail, as their attempt would. */
export const FAIL_UNDELIVERABLE = `
UPDATE webhook_deliveries d SET ${toUnadmitted(stateLiteral('failed'))}, updated_at = now()
WHERE d.uuid = ANY($1::uuid[]) AND ${admitted('d')}`;

/** Which of a batch job's deliveries are still admitted, and with how many attempts (a re-run sends only those). */
export const STILL_ADMITTED = `
SELECT d.uuid, d.attempts FROM webhook_deliveries d WHERE d.uuid = ANY($1::uuid[]) AND ${admitted('d')}`;
