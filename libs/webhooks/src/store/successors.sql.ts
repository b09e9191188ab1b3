import { FAST_ANSWER_MS } from '../tuning';
import { admittedCount, effectiveCap, inOrder, queueWindow, waitingDue } from './admission.sql';
import { toAdmitted } from './transitions.sql';
import { ADMITTED_RETURNING } from './job-rows.sql';

/**
 * Part 3 of the record (see record.sql.ts), successors: for each endpoint whose deliveries the batch
 * finished, due unadmitted deliveries (FOR UPDATE SKIP LOCKED, so concurrent records and the admitter never
 * admit the same one), in the admitter's order and by its ordering rules (counting those this batch settles
 * as no longer pending), until its queue window is full again: QUEUE_WINDOW_CAPS caps when this batch's
 * answers from it were all fast. None to an endpoint this batch finds gone (410). No lock: two records of one
 * endpoint committing at once may each refill from the same count, which overfills its queue (at most
 * twice), never its sends. Each cap's worth is a batch job of its own (the chunk of its admission number).
 */
export const admitSuccessors = () => `pace AS (
  SELECT webhook_endpoint_uuid AS endpoint,
    bool_and(status = 'successful' AND duration_ms <= ${FAST_ANSWER_MS}) AS fast
  FROM batch GROUP BY 1
), successor AS (
  SELECT w.uuid, f.endpoint, ${effectiveCap('ep')} AS cap FROM finished f
  JOIN webhook_endpoints ep ON ep.uuid = f.endpoint AND ep.status = 'enabled'
  JOIN pace ON pace.endpoint = f.endpoint
  CROSS JOIN LATERAL (
    SELECT d.uuid FROM webhook_deliveries d
    WHERE d.webhook_endpoint_uuid = f.endpoint AND ${waitingDue('d')}
      AND ${inOrder('d', "ep.ordering = 'entity'", (p) => `${p}.uuid = ANY(ARRAY(SELECT s.uuid FROM settled s))`)}
    ORDER BY d.next_attempt_at
    -- Every finished delivery counted as admitted still (this statement's snapshot), so added back.
    LIMIT greatest(0, ${queueWindow('ep', 'pace.fast')} - ${admittedCount('f.endpoint')} + f.n)
    FOR UPDATE OF d SKIP LOCKED
  ) w
  WHERE NOT EXISTS (SELECT 1 FROM unnest($2::uuid[], $3::text[]) AS g(uuid, change) WHERE g.uuid = f.endpoint AND g.change = 'gone')
), admitted AS (
  -- An array, not a join: the generic plan cannot know how many successors there are.
  UPDATE webhook_deliveries d SET ${toAdmitted('c.chunk')}
  FROM (SELECT s.uuid, (row_number() OVER (PARTITION BY s.endpoint ORDER BY s.uuid) - 1) / s.cap AS chunk
        FROM successor s) c
  WHERE d.uuid = ANY(ARRAY(SELECT s.uuid FROM successor s)) AND d.uuid = c.uuid
  ${ADMITTED_RETURNING}
)`;
