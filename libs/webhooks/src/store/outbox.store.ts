import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { poolOf } from '@wharf/core';
import { DataSource } from 'typeorm';
import { newEventId } from '../outbox/event-id';
import { OutboxEvent, OutboxWrites, StatementEvent, WriteConnection } from '../outbox/outbox-writes';
import { INSERT_EVENTS, OUTBOX_LAG, outboxOfStatement } from './outbox.sql';

/**
 * The outbox's writes (the outbox writer's, for every resource write) and its reads outside delivery; the
 * statements are in outbox.sql.ts. Fan-out and the record's operational events are DeliveryStore's.
 */
@Injectable()
export class OutboxStore implements OutboxWrites {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async write(
    connection: WriteConnection,
    company: string,
    events: OutboxEvent[],
    notify: boolean,
    traceContext?: string,
  ) {
    await connection.query(INSERT_EVENTS, [
      company,
      events.map(() => newEventId()),
      events.map((event) => event.name),
      events.map((event) => JSON.stringify(event.record)),
      new Date().toISOString(),
      events.map((event) => JSON.stringify(event.additionalData)),
      notify,
      traceContext ?? null,
    ]);
  }

  inStatement(event: StatementEvent) {
    return outboxOfStatement(event);
  }

  /** Age (s) of the oldest event not fanned out yet; 0 when none. */
  async lag(): Promise<number> {
    const { rows } = await poolOf(this.dataSource).query<{ lag: number }>(OUTBOX_LAG);
    return Number(rows[0]?.lag ?? 0);
  }
}
