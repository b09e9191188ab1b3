import { Inject, Injectable } from '@nestjs/common';
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
    await this.store.write(queryRunner, companyUuid, written, this.notifyInTransaction());
  }

  /** The same row for a one-statement write, around the record's JSON text the statement read back. */
  inStatement({ resource, action, source, params, company, prefix }: StatementChange): StatementParts {
    if (resource.events === false) return { with: [], select: [] };
    return this.store.inStatement({
      prefix,
      source,
      id: params.fresh(newEventId),
      company,
      name: literal(`${resource.keys.singular}.${action}`),
      createdAt: params.fresh(() => new Date().toISOString()),
      additionalData: action === 'updated' ? `'{"changes":' || ${source}."changes"::text || '}'` : `'{}'`,
      notify: params.fresh(this.notifyInTransaction),
    });
  }
}
