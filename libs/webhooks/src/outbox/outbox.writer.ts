import { Injectable } from '@nestjs/common';
import {
  DomainEvent,
  literal,
  ResourceChange,
  ResourceWriteListener,
  StatementChange,
  StatementParts,
  WriteListener,
} from '@wharf/core';
import { QueryRunner } from 'typeorm';
import { API_VERSION, changeEnvelope, domainEnvelope, newEventId } from './envelope';

export const OUTBOX_CHANNEL = 'wharf_webhook_events';
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

/**
 * Writes one outbox row per change and domain event on the write's own connection, before it commits:
 * a rolled-back write leaves nothing, a committed one cannot be lost. NOTIFY wakes the relay at commit.
 */
@Injectable()
@ResourceWriteListener()
export class OutboxWriter implements WriteListener {
  async beforeCommit(
    queryRunner: QueryRunner,
    companyUuid: string,
    changes: ResourceChange[],
    events: DomainEvent[],
  ) {
    const at = new Date().toISOString();
    const envelopes = [
      ...changes
        .filter((change) => change.resource.events !== false)
        .map((change) => changeEnvelope(change, at)),
      ...events.map((event) => domainEnvelope(event, at)),
    ];
    if (!envelopes.length) return;
    // One round trip: the insert, its place in the relay's queue, and the NOTIFY (delivered at commit)
    // that wakes the relay.
    await queryRunner.query(
      `WITH inserted AS (
         INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload")
         SELECT e, $1::uuid, n, p::json FROM unnest($2::text[], $3::text[], $4::text[]) AS t(e, n, p)
         RETURNING "id", "event_id"
       ), queued AS (${QUEUE('inserted')})
       SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row`,
      [
        companyUuid,
        envelopes.map((e) => e.id),
        envelopes.map((e) => e.event),
        envelopes.map((e) => JSON.stringify(e)),
      ],
    );
  }

  /**
   * The same row for a one-statement write, its envelope built by PostgreSQL around the record as served:
   * the shape of `changeEnvelope`, with `additionalData` appended to the record's own JSON text.
   */
  inStatement({ resource, action, source, params, company, prefix }: StatementChange): StatementParts {
    if (resource.events === false) return { with: [], select: [] };
    const name = literal(`${resource.keys.singular}.${action}`);
    const outbox = `${prefix}outbox`;
    const id = params.fresh(newEventId);
    const additional = action === 'updated' ? `'{"changes" : ' || ${source}."changes"::text || '}'` : `'{}'`;
    const payload = `json_build_object('id', ${id}::text, 'api_version', '${API_VERSION}', 'event', ${name},
      'created_at', ${params.fresh(() => new Date().toISOString())}::text,
      'data', (left(${source}."record"::text, -1) || ', "additionalData" : ' || ${additional} || '}')::json)`;
    return {
      with: [
        `${outbox} AS (INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload")
           SELECT ${id}::text, ${company}, ${name}, ${payload} FROM ${source} WHERE ${source}."changed" RETURNING "id", "event_id")`,
        `${prefix}queued AS (${QUEUE(outbox)})`,
      ],
      // Evaluated by the statement's SELECT: a CTE that only reads runs only if something reads it.
      select: [`(SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM ${outbox} LIMIT 1) AS "${prefix}notified"`],
    };
  }
}
