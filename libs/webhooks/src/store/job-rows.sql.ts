import { effectiveCap } from './admission.sql';

/** An admitted delivery as the store hands it to the queue: everything its job carries. */
export interface DeliveryRow {
  /** Its admission number (a bigint, so a string): names its batch job. */
  admission: string;
  /** The endpoint has a rate limit: each send needs its own slot, so each delivery gets its own job. */
  limited: boolean;
  /** Its endpoint's sends at once (max_in_flight, 1 while throttled). */
  cap: number;
  uuid: string;
  webhook_endpoint_uuid: string;
  company_uuid: string;
  attempts: number;
  event_id: string;
  name: string;
  body: string;
  /** The endpoint's updated_at in ms (a bigint, so pg gives a string). */
  version: string;
  /** The trace context of the write that made its event (null when it was not traced). */
  trace_context: string | null;
}

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
  'a.admission',
  'ep.rate_limit_per_second IS NOT NULL AS limited',
  `${effectiveCap('ep')} AS cap`,
  'e.trace_context',
];

/** The columns an admitting statement returns of the deliveries it admitted, for jobRows. */
export const ADMITTED_RETURNING =
  'RETURNING d.uuid, d.webhook_endpoint_uuid, d.company_uuid, d.attempts, d.event_id, d.admission';

/** The job data (DeliveryRow) of admitted deliveries `a` (with ADMITTED_RETURNING's columns). */
export const jobRows = (a: string) => `
SELECT ${JOB_COLUMNS.join(', ')}
FROM ${a} a
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
) ep`;

/** jobRows' columns, all null: how a row of the same UNION that names no job begins. */
export const NO_JOB = JOB_COLUMNS.map(() => 'NULL').join(', ');

/** What a statement that admits returned: job data of what it admitted, endpoints to admit more for. */
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
