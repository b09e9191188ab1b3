import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ReadReplicasHost, poolOf, readQuery } from '@wharf/core';
import { DataSource } from 'typeorm';
import { EVENT_DELIVERIES, LIST_EVENTS, LIST_UNSUCCESSFUL_EVENTS } from './events.sql';

/** What the events API filters a company's events by (see events.sql.ts). */
export interface EventQuery {
  company: string;
  /** Every row's event id is below this one (a cursor) … */
  below: string;
  /** … and at or above this one. */
  atOrAbove: string;
  names: string[] | null;
  dataId: string | null;
  createdFrom: Date | null;
  createdTo: Date | null;
  endpoint: string | null;
  /** false: only events with a delivery that failed or is retrying; true: only those without; null: all. */
  deliverySuccess: boolean | null;
  limit: number;
  /** The events the caller may read (by name); null: every event, no filter. */
  readable?: readonly string[] | null;
}

export interface StoredEvent {
  event_id: string;
  payload: string;
}

export interface EventDelivery {
  payload: string;
  webhook_endpoint_uuid: string | null;
  status: string | null;
  attempts: number | null;
  next_attempt_at: Date | null;
}

/**
 * The events API's reads of the outbox and the deliveries beside it: in the store, which alone reads
 * webhook_deliveries. Each is one statement from events.sql.ts (snapshots in snapshots/), and may be
 * served by a replica (readQuery).
 */
@Injectable()
export class EventsStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() private readonly replicas?: ReadReplicasHost,
  ) {}

  async list(query: EventQuery): Promise<StoredEvent[]> {
    // The names asked for, of those the caller may read: the same bound list ($4) filters both.
    const readable = query.readable ?? null;
    const names = readable && (query.names?.filter((name) => readable.includes(name)) ?? [...readable]);
    if (names?.length === 0) return [];
    const params: unknown[] = [
      query.company,
      query.below,
      query.atOrAbove,
      names ?? query.names,
      query.dataId,
      query.createdFrom,
      query.createdTo,
      query.endpoint,
      query.limit,
    ];
    const unsuccessfulOnly = query.deliverySuccess === false;
    const { rows } = await readQuery<StoredEvent>(
      poolOf(this.dataSource),
      {
        text: unsuccessfulOnly ? LIST_UNSUCCESSFUL_EVENTS : LIST_EVENTS,
        values: unsuccessfulOnly ? params : [...params, query.deliverySuccess],
      },
      this.replicas?.replicas,
    );
    return rows;
  }

  /**
   * The event of the company, once per endpoint it went to (one row with nulls: none); none when `readable`
   * (the names the caller may read; null: all) leaves it out.
   */
  async deliveries(
    company: string,
    eventId: string,
    readable: readonly string[] | null = null,
  ): Promise<EventDelivery[]> {
    const pool = poolOf(this.dataSource);
    const values = [company, eventId, readable];
    return (await readQuery<EventDelivery>(pool, { text: EVENT_DELIVERIES, values }, this.replicas?.replicas))
      .rows;
  }
}
