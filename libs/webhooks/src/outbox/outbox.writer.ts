import { Injectable } from '@nestjs/common';
import {
  DomainEvent,
  literal,
  RequestContext,
  ResourceChange,
  ResourceWriteListener,
  StatementChange,
  StatementParts,
  WriteListener,
} from '@wharf/core';
import { QueryRunner } from 'typeorm';
import { envelopeSql, newEventId } from './envelope';
import { OUTBOX_CHANNEL, OutboxSignal } from './outbox.signal';

export { OUTBOX_CHANNEL };
/** Sent on OUTBOX_CHANNEL when deliveries were put back to wait (resend, recover): workers admit them. */
export const ADMIT_PAYLOAD = 'admit';

/** The relay's queue: the ids of outbox events not fanned out yet (migration 1700000000109). */
export const UNDISPATCHED_EVENTS = 'webhook_events_undispatched';

/**
 * Puts the events `inserted` (a CTE returning their ids and event ids) in the relay's queue. The event id
 * names the outbox partition the relay reads the event from.
 */
const QUEUE = (inserted: string) =>
  `INSERT INTO ${UNDISPATCHED_EVENTS} (id, event_id) SELECT id, event_id FROM ${inserted}`;

/** The outbox insert of a transaction's events: their envelopes built by envelopeSql from unnested parts. */
const INSERT_EVENTS = `WITH inserted AS (
    INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload")
    SELECT t.e, $1::uuid, t.n, ${envelopeSql({ id: 't.e', event: 't.n', createdAt: '$5', record: 't.r', additionalData: 't.a' })}
    FROM unnest($2::text[], $3::text[], $4::text[], $6::text[]) AS t(e, n, r, a)
    RETURNING "id", "event_id"
  ), queued AS (${QUEUE('inserted')})
  SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row WHERE $7::boolean`;

/**
 * Writes one outbox row per change and domain event on the write's own connection, before it commits:
 * a rolled-back write leaves nothing, a committed one cannot be lost. The relay is woken once the
 * request's response is sent (OutboxSignal); a write outside a request (CLI, worker) NOTIFYs at its commit.
 */
@Injectable()
@ResourceWriteListener()
export class OutboxWriter implements WriteListener {
  constructor(private readonly signal: OutboxSignal) {}

  /** Whether the write's own transaction must NOTIFY: not when the signal follows the response. */
  private readonly notifyInTransaction = () => !RequestContext.afterResponse(this.signal.poke);

  async beforeCommit(
    queryRunner: QueryRunner,
    companyUuid: string,
    changes: ResourceChange[],
    events: DomainEvent[],
  ) {
    const parts = [
      ...changes
        .filter((change) => change.resource.events !== false)
        .map((change) => ({
          event: `${change.resource.keys.singular}.${change.action}`,
          record: change.record,
          additionalData: change.changes ? { changes: change.changes } : {},
        })),
      ...events.map((event) => ({
        event: event.name,
        record: event.record,
        additionalData: event.additionalData ?? {},
      })),
    ];
    if (!parts.length) return;
    // One round trip: the insert, its place in the relay's queue, and (outside a request) the NOTIFY.
    await queryRunner.query(INSERT_EVENTS, [
      companyUuid,
      parts.map(() => newEventId()),
      parts.map((part) => part.event),
      parts.map((part) => JSON.stringify(part.record)),
      new Date().toISOString(),
      parts.map((part) => JSON.stringify(part.additionalData)),
      this.notifyInTransaction(),
    ]);
  }

  /** The same row for a one-statement write, around the record's JSON text the statement read back. */
  inStatement({ resource, action, source, params, company, prefix }: StatementChange): StatementParts {
    if (resource.events === false) return { with: [], select: [] };
    const name = literal(`${resource.keys.singular}.${action}`);
    const outbox = `${prefix}outbox`;
    const id = params.fresh(newEventId);
    const payload = envelopeSql({
      id,
      event: name,
      createdAt: params.fresh(() => new Date().toISOString()),
      record: `${source}."record"`,
      additionalData: action === 'updated' ? `'{"changes":' || ${source}."changes"::text || '}'` : `'{}'`,
    });
    return {
      with: [
        `${outbox} AS (INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload")
           SELECT ${id}::text, ${company}, ${name}, ${payload} FROM ${source} WHERE ${source}."changed" RETURNING "id", "event_id")`,
        `${prefix}queued AS (${QUEUE(outbox)})`,
      ],
      // Evaluated by the statement's SELECT: a CTE that only reads runs only if something reads it.
      select: [
        `(SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM ${outbox} WHERE ${params.fresh(this.notifyInTransaction)}::boolean LIMIT 1) AS "${prefix}notified"`,
      ],
    };
  }
}
