/**
 * The rules of admission (DESIGN.md 6.3) as SQL fragments, shared by the DeliveryAdmitter and the attempt
 * recorder, which both admit deliveries.
 */

import type { DeliveryRow } from '../delivery/delivery-queue';
import { UNDISPATCHED_EVENTS } from '../outbox/outbox.writer';

/**
 * The outbox position below which every event is fanned out (see `inOrder`), as a scalar subquery: it is
 * uncorrelated, so PostgreSQL runs it once per statement, and only when an ordered endpoint's delivery
 * reaches it. It walks the queue's index from its start, past every entry the relay deleted since the
 * last vacuum: 0.2-4.4 ms after a 20,000-event backlog was fanned out (bench:webhooks, auto_explain),
 * which a CTE joined in paid in every admission and attempt record, ordered endpoint or not.
 */
const OUTBOX_BARRIER = `(SELECT coalesce(min(id), 9223372036854775807) FROM ${UNDISPATCHED_EVENTS})`;

/** How many attempts `ep` may have in flight: one while it is throttled. */
export const effectiveCap = (ep: string) => `(CASE WHEN ${ep}.throttled THEN 1 ELSE ${ep}.max_in_flight END)`;

/** How many of an endpoint's deliveries are admitted (in the queue or being sent). */
export const admittedCount = (endpoint: string) =>
  `(SELECT count(*) FROM webhook_deliveries counted
    WHERE counted.webhook_endpoint_uuid = ${endpoint} AND counted.status = 'pending'
      AND counted.admitted_at IS NOT NULL)::int`;

/** How many more of endpoint `ep`'s deliveries may be admitted: its cap less those admitted (may be negative). */
export const freeSlots = (ep: string) => `(${effectiveCap(ep)} - ${admittedCount(`${ep}.uuid`)})`;

/**
 * When an endpoint's first waiting delivery (after skipping `offset`) is due, or null. Ordered by the
 * waiting index, so a prepared (generic) plan still walks the index rather than scanning every delivery of
 * the one endpoint that has a backlog.
 */
export const firstWaitingAt = (endpoint: string, offset = '0') =>
  `(SELECT w.next_attempt_at FROM webhook_deliveries w
    WHERE w.webhook_endpoint_uuid = ${endpoint} AND w.status = 'pending' AND w.admitted_at IS NULL
    ORDER BY w.next_attempt_at OFFSET ${offset} LIMIT 1)`;

/** Delivery `d` waits and is due. */
export const waitingDue = (d: string) =>
  `${d}.status = 'pending' AND ${d}.admitted_at IS NULL AND ${d}.next_attempt_at <= now()`;

/**
 * Delivery `d` may go now as far as ordering goes: its endpoint does not order (`ordered` false), or no
 * earlier delivery of its record to the endpoint is pending (`settled(p)` names earlier ones the same
 * statement finishes), and every earlier outbox event is fanned out (a relay in another worker may hold an
 * earlier event of the same record in a batch it has not committed yet).
 */
export const inOrder = (d: string, ordered: string, settled = (_p: string) => 'false') =>
  `(NOT ${ordered} OR ${d}.entity_key IS NULL OR ${d}.event_seq < ${OUTBOX_BARRIER} AND NOT EXISTS (
     SELECT 1 FROM webhook_deliveries p
     WHERE p.webhook_endpoint_uuid = ${d}.webhook_endpoint_uuid AND p.entity_key = ${d}.entity_key
       AND p.status = 'pending' AND p.event_seq < ${d}.event_seq AND NOT ${settled('p')}))`;

/**
 * The admission number of admitted delivery `d`, which names its batch job. A worker older than the number
 * (still running while a deploy rolls out) admits without one and names the job by admitted_at in
 * microseconds, as every worker did before.
 */
export const admissionOf = (d: string) =>
  `coalesce(${d}.admission, (extract(epoch FROM ${d}.admitted_at) * 1000000)::bigint)`;

/** How many batch jobs per endpoint one admitting statement may number (the attempt recorder's chunks). */
export const ADMISSION_CHUNKS = 1024;

/**
 * The admission number of chunk `chunk` (0 to ADMISSION_CHUNKS - 1) of one admitting statement: it names the
 * batch job of the deliveries the statement admits to one endpoint in that chunk (see deliveryBatchJobId).
 * The sequence is read once per statement (an uncorrelated sub-select is an init plan, however volatile),
 * so two statements never share a number, however close together they start.
 */
export const admissionNumber = (chunk = '0') =>
  `((SELECT nextval('webhook_admission_seq')) * ${ADMISSION_CHUNKS} + ${chunk})`;

/*
 * A delivery's admission number goes with its admitted_at: set together, cleared together, so a number
 * is never left over for admissionOf to read on a delivery an older worker admits again. Every UPDATE that
 * admits or un-admits sets both through these.
 */

/** SET list: admitted now, as chunk `chunk` of this statement's admission. */
export const admitNow = (chunk = '0') => `admitted_at = now(), admission = ${admissionNumber(chunk)}`;

/** SET list: no longer admitted. */
export const NOT_ADMITTED = 'admitted_at = NULL, admission = NULL';

/** SET list: delivery `d` stays admitted, under its number, only while `keep` holds. */
export const admittedWhile = (d: string, keep: string) =>
  `admitted_at = CASE WHEN ${keep} THEN ${d}.admitted_at END, admission = CASE WHEN ${keep} THEN ${d}.admission END`;

/** A DeliveryRow's columns, selected by jobRows from admitted deliveries `a`, their event `e` and endpoint `ep`. */
const JOB_COLUMNS = [
  'a.uuid',
  'a.webhook_endpoint_uuid',
  'a.company_uuid',
  'a.attempts',
  'e.event_id',
  'e.name',
  'e.payload::text AS body',
  '(extract(epoch FROM ep.updated_at) * 1000)::bigint AS version',
  `${admissionOf('a')} AS admission`,
  'ep.rate_limit_per_second IS NOT NULL AS limited',
  `${effectiveCap('ep')} AS cap`,
];

/**
 * The job data of admitted deliveries `a` (uuid, webhook_endpoint_uuid, company_uuid, attempts, event_id,
 * admitted_at, admission): a DeliveryRow.
 */
export const jobRows = (a: string) => `
SELECT ${JOB_COLUMNS.join(', ')}
FROM ${a} a
JOIN webhook_events e ON e.event_id = a.event_id
-- A lookup by key per row (LIMIT 1 keeps the planner from flattening it into a join): planned with a few
-- endpoints, a join walked the whole endpoint index once per admitted delivery, for the connection's life.
CROSS JOIN LATERAL (
  SELECT ep.updated_at, ep.rate_limit_per_second, ep.throttled, ep.max_in_flight FROM webhook_endpoints ep
  WHERE ep.uuid = a.webhook_endpoint_uuid LIMIT 1
) ep`;

/** jobRows' columns, all null: how a row of the same UNION that names no job begins. */
export const NO_JOB = JOB_COLUMNS.map(() => 'NULL').join(', ');

/**
 * What a statement that admits returned (`RECORD_ATTEMPTS`, `DISPATCH_BATCH`): the job data of the
 * deliveries it admitted, and the endpoints whose waiting deliveries the DeliveryAdmitter should look at.
 */
export interface Admission {
  admitted: DeliveryRow[];
  admitMore: string[];
}

/** Splits the rows of such a statement: a job row has `more` null, a row naming an endpoint only `more`. */
export function splitAdmission(rows: (DeliveryRow & { more: string | null })[]): Admission {
  const admission: Admission = { admitted: [], admitMore: [] };
  for (const row of rows) {
    if (row.more === null) admission.admitted.push(row);
    else admission.admitMore.push(row.more);
  }
  return admission;
}
