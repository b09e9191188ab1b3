import { DataSource } from 'typeorm';
import { orderingColumns } from '../delivery/ordering-sql';
import { admittedWhile } from '../worker/admission-sql';

/** A delivery put back in the queue, as the recover and resend routes report it. */
export interface QueuedDelivery {
  uuid: string;
  webhook_endpoint_uuid: string;
  event_id: string;
  event: string;
  status: 'pending';
  /** Attempts already made; the next one continues the count. */
  attempts: number;
  /** When the event happened. */
  event_created_at: Date;
}

const RETURNING = `RETURNING d.uuid, d.webhook_endpoint_uuid, d.event_id, e.name AS event, d.status, d.attempts,
  e.created_at AS event_created_at`;

/**
 * Statements over `webhook_deliveries` (not a resource: the relay creates them). Each is scoped to the
 * caller's company and endpoint, and sets the deliveries back to pending and due now: a delivery that was
 * finished waits for the workers to admit it (DeliveryAdmitter); one already in flight stays admitted.
 */
export const deliveryRequeue = {
  /** Every failed delivery to the endpoint of an event created in [since, until]. */
  async failedInWindow(
    dataSource: DataSource,
    company: string,
    endpoint: string,
    since: Date,
    until: Date | null,
  ): Promise<QueuedDelivery[]> {
    const [rows]: [QueuedDelivery[]] = await dataSource.query(
      `UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now(), updated_at = now(),
         ${admittedWhile('d', "d.status = 'pending'")}
       FROM webhook_events e
       WHERE e.event_id = d.event_id AND d.company_uuid = $1 AND d.webhook_endpoint_uuid = $2
         AND d.status = 'failed' AND e.created_at >= $3 AND ($4::timestamptz IS NULL OR e.created_at <= $4)
       ${RETURNING}`,
      [company, endpoint, since, until],
    );
    return rows.sort((a, b) => a.event_created_at.getTime() - b.event_created_at.getTime());
  },

  /**
   * The delivery of one event to the endpoint, whatever its state (resend). A delivered one is no longer
   * stored (the attempt recorder deletes it), so it is made again, as the relay makes one, its attempts
   * counted from the log.
   */
  async one(
    dataSource: DataSource,
    company: string,
    endpoint: string,
    eventId: string,
  ): Promise<QueuedDelivery | undefined> {
    // An INSERT's rows come back as they are (an UPDATE's with its count, as in failedInWindow).
    const rows: QueuedDelivery[] = await dataSource.query(
      `WITH e AS (
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
       ON CONFLICT (event_id, webhook_endpoint_uuid) DO UPDATE SET status = 'pending', next_attempt_at = now(),
         updated_at = now(), ${admittedWhile('d', "d.status = 'pending'")}
       RETURNING d.uuid, d.webhook_endpoint_uuid, d.event_id, (SELECT name FROM e) AS event, d.status, d.attempts,
         (SELECT created_at FROM e) AS event_created_at`,
      [company, endpoint, eventId],
    );
    return rows[0];
  },
};
