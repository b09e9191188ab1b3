import { toWaitingUnlessAdmitted } from './transitions.sql';
import { isIn } from './delivery-state';
import { orderingColumns } from './ordering.sql';

/** A delivery put back in the queue, as the recover and resend routes report it. */
export interface QueuedDelivery {
  uuid: string;
  webhook_endpoint_uuid: string;
  event_id: string;
  event: string;
  /** Always `pending` to API clients: to be delivered. */
  status: 'pending';
  /** Attempts already made; the next one continues the count. */
  attempts: number;
  /** When the event happened. */
  event_created_at: Date;
}

const RETURNING = `RETURNING d.uuid, d.webhook_endpoint_uuid, d.event_id, e.name AS event, 'pending' AS status,
  d.attempts, e.created_at AS event_created_at`;

/**
 * Recover ($1 company, $2 endpoint, $3 since, $4 until or null): every failed delivery to the endpoint of an
 * event created in [since, until] goes back to waiting, due now.
 */
export const REQUEUE_FAILED = `
UPDATE webhook_deliveries d SET ${toWaitingUnlessAdmitted('d')}, updated_at = now()
FROM webhook_events e
WHERE e.event_id = d.event_id AND d.company_uuid = $1 AND d.webhook_endpoint_uuid = $2
  AND ${isIn('d', 'failed')} AND e.created_at >= $3 AND ($4::timestamptz IS NULL OR e.created_at <= $4)
${RETURNING}`;

/**
 * Resend ($1 company, $2 endpoint, $3 event id): the delivery of one event to the endpoint, whatever its
 * state, waiting and due now (one already admitted stays so). A delivered one is no longer stored, so it is
 * made again as fan-out makes one, its attempts counted from the log.
 */
export const REQUEUE_ONE = `
WITH e AS (
  SELECT id, event_id, name, created_at, payload FROM webhook_events WHERE event_id = $3 AND company_uuid = $1
), ep AS (
  SELECT uuid, ordering = 'entity' AS ordered FROM webhook_endpoints WHERE uuid = $2 AND company_uuid = $1
)
INSERT INTO webhook_deliveries AS d (event_id, webhook_endpoint_uuid, company_uuid, attempts, entity_key, event_seq)
SELECT e.event_id, ep.uuid, $1,
  coalesce((SELECT max(l.attempt) FROM webhook_request_logs l
            WHERE l.company_uuid = $1 AND l.event_id = $3 AND l.webhook_endpoint_uuid = $2 AND NOT l.test), 0),
  ${orderingColumns('ep.ordered', 'e.payload', 'e.id')}
FROM e CROSS JOIN ep
ON CONFLICT (webhook_endpoint_uuid, event_id) DO UPDATE SET ${toWaitingUnlessAdmitted('d')}, updated_at = now()
RETURNING d.uuid, d.webhook_endpoint_uuid, d.event_id, (SELECT name FROM e) AS event, 'pending' AS status,
  d.attempts, (SELECT created_at FROM e) AS event_created_at`;
