import { envelopeSql } from '../outbox/envelope';
import { StatementEvent } from '../outbox/outbox-writes';
import { OUTBOX_CHANNEL } from '../outbox/outbox.signal';
import { UNDISPATCHED_EVENTS } from './tables';

/**
 * Puts the events `inserted` (a CTE returning their ids and event ids) in the relay's queue. The event id
 * names the outbox partition the relay reads the event from.
 */
const queueEvents = (inserted: string) =>
  `INSERT INTO ${UNDISPATCHED_EVENTS} (id, event_id) SELECT id, event_id FROM ${inserted}`;

/**
 * A transaction's events into the outbox, their envelopes built by envelopeSql from unnested parts, queued
 * for the relay, and (with $7) the relay woken at commit. $1 company, $2 event ids, $3 names, $4 records'
 * JSON, $5 the time, $6 each additionalData's JSON, $8 the write's trace context kept by each (null when
 * it is not traced).
 */
export const INSERT_EVENTS = `WITH inserted AS (
    INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload", "trace_context")
    SELECT t.e, $1::uuid, t.n, ${envelopeSql({ id: 't.e', event: 't.n', createdAt: '$5', record: 't.r', additionalData: 't.a' })}, $8::text
    FROM unnest($2::text[], $3::text[], $4::text[], $6::text[]) AS t(e, n, r, a)
    RETURNING "id", "event_id"
  ), queued AS (${queueEvents('inserted')})
  SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row WHERE $7::boolean`;

/**
 * The outbox row of a one-statement write, as CTEs of that statement, and the SELECT column that wakes the
 * relay: an event when the write changed its record.
 */
export function outboxOfStatement(event: StatementEvent): { with: string[]; select: string[] } {
  const { prefix, source } = event;
  const outbox = `${prefix}outbox`;
  const payload = envelopeSql({
    id: event.id,
    event: event.name,
    createdAt: event.createdAt,
    record: `${source}."record"`,
    additionalData: event.additionalData,
  });
  return {
    with: [
      `${outbox} AS (INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload", "trace_context")
           SELECT ${event.id}::text, ${event.company}, ${event.name}, ${payload}, ${event.traceContext ?? 'NULL'}::text FROM ${source} WHERE ${source}."changed" RETURNING "id", "event_id")`,
      `${prefix}queued AS (${queueEvents(outbox)})`,
    ],
    // Evaluated by the statement's SELECT: a CTE that only reads runs only if something reads it.
    select: [
      `(SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM ${outbox} WHERE ${event.notify}::boolean LIMIT 1) AS "${prefix}notified"`,
    ],
  };
}

/** Age (s) of the oldest outbox event not yet fanned out; 0 when none. */
export const OUTBOX_LAG = `
SELECT COALESCE(extract(epoch FROM now() - min(created_at)), 0)::float8 AS lag
FROM ${UNDISPATCHED_EVENTS} u JOIN webhook_events e ON e.id = u.id`;
