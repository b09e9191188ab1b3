import { SWEEP_BATCH } from '../tuning';
import { admitted, pending, unadmitted } from './delivery-state';
import { jobRows } from './job-rows.sql';

/**
 * Deliveries admitted longer ago than $1 seconds: each may have lost its job (Redis restarted without
 * persistence, a crash between admission and enqueue). The sweeper checks Redis for each one's job.
 */
export const ADMITTED_BEFORE = `
SELECT d.uuid, d.webhook_endpoint_uuid AS endpoint, d.attempts, d.admission
FROM webhook_deliveries d
WHERE ${admitted('d')} AND d.admitted_at < now() - make_interval(secs => $1)
ORDER BY d.admitted_at LIMIT ${SWEEP_BATCH}`;

/** The job rows of those of deliveries $1 still admitted (to queue their jobs again). */
export const JOB_ROWS_OF = `${jobRows('webhook_deliveries')}
WHERE a.uuid = ANY($1::uuid[]) AND ${admitted('a')}`;

/**
 * What endpoint $1's deliveries are doing right now (the console's queue view): `waiting` counts the
 * unadmitted ones due, `retrying` those whose next attempt time is still ahead.
 */
export const QUEUE_COUNTS = `
SELECT count(*) FILTER (WHERE ${admitted('d')})::int AS in_flight,
       count(*) FILTER (WHERE ${unadmitted('d')} AND d.next_attempt_at <= now())::int AS waiting,
       count(*) FILTER (WHERE ${unadmitted('d')} AND d.next_attempt_at > now())::int AS retrying
FROM webhook_deliveries d WHERE d.webhook_endpoint_uuid = $1 AND ${pending('d')}`;
