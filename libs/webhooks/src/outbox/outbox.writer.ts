import { Inject, Injectable } from '@nestjs/common';
import {
  DomainEvent,
  literal,
  RequestContext,
  ResourceChange,
  ResourceWriteListener,
  StatementChange,
  StatementParts,
  TraceSpan,
  Tracing,
  WriteListener,
  tracing,
} from '@wharf/core';
import { QueryRunner } from 'typeorm';
import { newEventId } from './event-id';
import { OUTBOX_WRITES, OutboxEvent, OutboxWrites } from './outbox-writes';
import { OUTBOX_CHANNEL, OutboxSignal } from './outbox.signal';

export { OUTBOX_CHANNEL };
/** Sent on OUTBOX_CHANNEL when deliveries were put back to wait (resend, recover): workers admit them. */
export const ADMIT_PAYLOAD = 'admit';

/**
 * Writes one outbox row per change and domain event on the write's own connection, before it commits:
 * a rolled-back write leaves nothing, a committed one cannot be lost. The relay is woken once the
 * request's response is sent (OutboxSignal); a write outside a request (CLI, worker) NOTIFYs at its commit.
 * The store writes them (OUTBOX_WRITES).
 */
@Injectable()
@ResourceWriteListener()
export class OutboxWriter implements WriteListener {
  constructor(
    private readonly signal: OutboxSignal,
    @Inject(OUTBOX_WRITES) private readonly store: OutboxWrites,
  ) {}

  /** Whether the write's own transaction must NOTIFY: not when the signal follows the response. */
  private readonly notifyInTransaction = () => !RequestContext.afterResponse(this.signal.poke);

  async beforeCommit(
    queryRunner: QueryRunner,
    companyUuid: string,
    changes: ResourceChange[],
    events: DomainEvent[],
  ) {
    const written: OutboxEvent[] = [
      ...changes
        .filter((change) => change.resource.events !== false)
        .map((change) => ({
          name: `${change.resource.keys.singular}.${change.action}`,
          record: change.record,
          additionalData: change.changes ? { changes: change.changes } : {},
        })),
      ...events.map((event) => ({
        name: event.name,
        record: event.record,
        additionalData: event.additionalData ?? {},
      })),
    ];
    if (!written.length) return;
    // One round trip: the insert, its place in the relay's queue, and (outside a request) the NOTIFY.
    const traces = tracing();
    if (!traces) return this.store.write(queryRunner, companyUuid, written, this.notifyInTransaction());
    const span = writeSpan(
      traces,
      written.map((event) => event.name),
    );
    try {
      await this.store.write(queryRunner, companyUuid, written, this.notifyInTransaction(), span.context);
    } catch (error) {
      span.failed((error as Error).message);
      throw error;
    } finally {
      span.end();
    }
  }

  /** The same row for a one-statement write, around the record's JSON text the statement read back. */
  inStatement({ resource, action, source, params, company, prefix }: StatementChange): StatementParts {
    if (resource.events === false) return { with: [], select: [] };
    const traces = tracing();
    const name = `${resource.keys.singular}.${action}`;
    return this.store.inStatement({
      prefix,
      source,
      id: params.fresh(newEventId),
      company,
      name: literal(name),
      createdAt: params.fresh(() => new Date().toISOString()),
      additionalData: action === 'updated' ? `'{"changes":' || ${source}."changes"::text || '}'` : `'{}'`,
      notify: params.fresh(this.notifyInTransaction),
      // Tracing is on or off for the life of the process, so the statement built once stays right.
      ...(traces && { traceContext: params.fresh(() => statementWriteSpan(traces, name)) }),
    });
  }
}

/**
 * The span of an outbox write, child of the request's: its context is kept by the events it writes, so
 * their fan-out and every attempt at delivering them join the request's trace.
 */
function writeSpan(traces: Tracing, events: string[]): TraceSpan {
  return traces.start('webhook events write', {
    attributes: { 'wharf.event.name': events.join(','), 'wharf.event.count': events.length },
  });
}

/** A one-statement write's event is written by the record's own statement: its span marks that moment. */
function statementWriteSpan(traces: Tracing, event: string): string {
  const span = writeSpan(traces, [event]);
  span.end();
  return span.context;
}
