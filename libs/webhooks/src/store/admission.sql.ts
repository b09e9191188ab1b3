/**
 * The rules of admission as SQL fragments, shared by the statements that admit: fan-out, the admitter and
 * the record (successors). Admission bounds how much of an endpoint's backlog is in the queue (its window),
 * so a backlog waits in PostgreSQL and holds no worker slot; how many of those are sent at once is the send
 * leases' bound alone (stages/dispatch/endpoint-send-leases.ts).
 */

import { UNDISPATCHED_EVENTS } from './tables';
import { QUEUE_WINDOW_CAPS } from '../tuning';
import { admitted, pending, unadmitted } from './delivery-state';

/**
 * The outbox position below which every event is fanned out (see `inOrder`), as an uncorrelated scalar
 * subquery: PostgreSQL runs it once per statement, and only when an ordered endpoint's delivery reaches it.
 */
const OUTBOX_BARRIER = `(SELECT coalesce(min(id), 9223372036854775807) FROM ${UNDISPATCHED_EVENTS})`;

/** How many attempts endpoint `ep` may have in flight (its send leases): one while it is throttled. */
export const effectiveCap = (ep: string) => `(CASE WHEN ${ep}.throttled THEN 1 ELSE ${ep}.max_in_flight END)`;

/**
 * How many of endpoint `ep`'s deliveries the queue may hold: one cap, or QUEUE_WINDOW_CAPS caps when `fast`
 * (its last answers came fast) and it has no rate limit (each rate-limited send waits for its own slot).
 */
export const queueWindow = (ep: string, fast?: string) =>
  fast === undefined
    ? effectiveCap(ep)
    : `(${effectiveCap(ep)} * CASE WHEN ${fast} AND ${ep}.rate_limit_per_second IS NULL THEN ${QUEUE_WINDOW_CAPS} ELSE 1 END)`;

/** How many of an endpoint's deliveries are admitted (in the queue or being sent). */
export const admittedCount = (endpoint: string) =>
  `(SELECT count(*) FROM webhook_deliveries counted
    WHERE counted.webhook_endpoint_uuid = ${endpoint} AND ${admitted('counted')})::int`;

/** How many more of endpoint `ep`'s deliveries one cap's window has room for (may be negative). */
export const windowRoom = (ep: string) => `(${queueWindow(ep)} - ${admittedCount(`${ep}.uuid`)})`;

/**
 * When an endpoint's first unadmitted delivery (after skipping `offset`) is due, or null. Ordered by the
 * waiting index, so a generic plan walks the index rather than scanning the endpoint's backlog.
 */
export const firstWaitingAt = (endpoint: string, offset = '0') =>
  `(SELECT w.next_attempt_at FROM webhook_deliveries w
    WHERE w.webhook_endpoint_uuid = ${endpoint} AND ${unadmitted('w')}
    ORDER BY w.next_attempt_at OFFSET ${offset} LIMIT 1)`;

/** Delivery `d` is unadmitted and due. */
export const waitingDue = (d: string) => `${unadmitted(d)} AND ${d}.next_attempt_at <= now()`;

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
       AND ${pending('p')} AND p.event_seq < ${d}.event_seq AND NOT ${settled('p')}))`;
