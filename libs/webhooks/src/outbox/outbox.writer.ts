import { Injectable } from '@nestjs/common';
import { DomainEvent, ResourceChange, ResourceWriteListener, WriteListener } from '@wharf/core';
import { QueryRunner } from 'typeorm';
import { changeEnvelope, domainEnvelope } from './envelope';

export const OUTBOX_CHANNEL = 'wharf_webhook_events';
/** Sent on OUTBOX_CHANNEL when deliveries were put back to wait (resend, recover): workers admit them. */
export const ADMIT_PAYLOAD = 'admit';

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
    // One round trip: the insert, and the NOTIFY (delivered at commit) that wakes the relay.
    await queryRunner.query(
      `WITH inserted AS (
         INSERT INTO "webhook_events" ("event_id", "company_uuid", "name", "payload")
         SELECT e, $1::uuid, n, p::json FROM unnest($2::text[], $3::text[], $4::text[]) AS t(e, n, p)
         RETURNING 1
       )
       SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM (SELECT 1 FROM inserted LIMIT 1) AS any_row`,
      [
        companyUuid,
        envelopes.map((e) => e.id),
        envelopes.map((e) => e.event),
        envelopes.map((e) => JSON.stringify(e)),
      ],
    );
  }
}
