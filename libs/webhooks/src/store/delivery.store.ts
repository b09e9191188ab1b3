import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { poolOf, prepared, withPoolClient } from '@wharf/core';
import { DataSource } from 'typeorm';
import { ADMIT, DUE_ENDPOINTS, FAIL_UNDELIVERABLE, LOCK_ENDPOINTS, STILL_ADMITTED } from './admit.sql';
import { attemptBatchJson, attemptBatchRow } from './attempt-batch';
import { AttemptRecord, healthChanges } from './attempt-record';
import { FAN_OUT } from './fan-out.sql';
import { Admission, DeliveryRow, splitAdmission } from './job-rows.sql';
import { RECORD_ATTEMPTS } from './record.sql';
import { ADMITTED_BEFORE, JOB_ROWS_OF, QUEUE_COUNTS } from './recovery.sql';
import { QueuedDelivery, REQUEUE_FAILED, REQUEUE_ONE } from './requeue.sql';
import {
  DROP_FAILED_IN_EVENT_RANGE,
  DROP_FAILED_OF_EVENTS,
  PENDING_EVENTS_OF,
  PENDING_IN_EVENT_RANGE,
} from './retention.sql';
import { EVENT_ROUTING, ReadableEvents } from './routing.sql';
import { CHURN_STATS, CHURN_TABLES, ChurnStats, ChurnTable, vacuumStatement } from './upkeep.sql';

/** A connection in a transaction of the caller's (retention checks and drops under its partition lock). */
export interface InTransaction {
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

/** An admitted delivery the sweeper checks for a job. */
export interface AdmittedDelivery {
  uuid: string;
  endpoint: string;
  attempts: number;
  admission: string;
}

/** One endpoint of an event's company and what became of the event there (see routing.sql.ts). */
export interface EventRoutingRow {
  name: string;
  payload: string;
  event_created_at: Date;
  pending: boolean;
  endpoint: string | null;
  url: string;
  endpoint_status: string;
  filter: unknown;
  created_after: boolean;
  subscribed: boolean;
  delivery_status: string | null;
  attempts: number | null;
  logged_attempts: number;
  delivered: boolean;
}

export interface QueueCounts {
  in_flight: number;
  waiting: number;
  retrying: number;
}

/**
 * The one owner of `webhook_deliveries`: every read and write of a delivery is a method here, each one
 * statement (or one transaction) from this folder's SQL, whose text is kept in snapshots/ for review. The
 * stages (fan-out, admission, dispatch, record, recovery) and the management routes call it; a delivery's
 * states and transitions are in delivery-state.ts.
 */
@Injectable()
export class DeliveryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get pool() {
    return poolOf(this.dataSource);
  }

  /** Fan-out: claims a batch of outbox events and creates their deliveries, admitting what fits. */
  async fanOut(): Promise<{ claimed: number; admission: Admission }> {
    type Row = DeliveryRow & { more: string | null; claimed: number | null };
    const { rows } = await this.pool.query<Row>(prepared(FAN_OUT));
    const claimed = rows.find((row) => row.claimed !== null)?.claimed ?? 0;
    return { claimed, admission: splitAdmission(rows.filter((row) => row.claimed === null)) };
  }

  /** Endpoints with a due unadmitted delivery. */
  async dueEndpoints(): Promise<string[]> {
    const { rows } = await this.pool.query<{ uuid: string }>(prepared(DUE_ENDPOINTS));
    return rows.map((row) => row.uuid);
  }

  /** Admission: fills these endpoints' queue windows, under their locks; returns the job rows. */
  admit(endpoints: string[]): Promise<DeliveryRow[]> {
    return withPoolClient(this.pool, async (client) => {
      await client.query('BEGIN');
      try {
        await client.query(prepared(LOCK_ENDPOINTS, [endpoints]));
        const { rows } = await client.query<DeliveryRow>(prepared(ADMIT, [endpoints]));
        await client.query('COMMIT');
        return rows;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** Record: writes a batch of attempts in one atomic statement; returns the successors it admitted. */
  async record(records: AttemptRecord[], autoDisableAfterDays: number): Promise<Admission> {
    const health = healthChanges(records);
    // One JSON document rather than an array per column: JSON.stringify is native, pg's array quoting is not.
    const { rows } = await this.pool.query<DeliveryRow & { more: string | null }>(
      prepared(RECORD_ATTEMPTS, [
        attemptBatchJson(records.map(attemptBatchRow)),
        [...health.keys()],
        [...health.values()].map((h) => h.change),
        autoDisableAfterDays,
        records.map((r) => r.delivery.uuid),
        [...health.values()].map((h) => h.timeouts),
      ]),
    );
    return splitAdmission(rows);
  }

  /** Admitted deliveries whose endpoint is gone or disabled: failed, as their attempt would. */
  async failUndeliverable(deliveries: string[]): Promise<void> {
    await this.pool.query(prepared(FAIL_UNDELIVERABLE, [deliveries]));
  }

  /** Of these deliveries, those still admitted, with their attempts so far. */
  async stillAdmitted(deliveries: string[]): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ uuid: string; attempts: number }>(
      prepared(STILL_ADMITTED, [deliveries]),
    );
    return new Map(rows.map((row) => [row.uuid, row.attempts]));
  }

  /** Deliveries admitted longer than `graceMs` ago, oldest first (they may have lost their job). */
  async admittedBefore(graceMs: number): Promise<AdmittedDelivery[]> {
    return (await this.pool.query<AdmittedDelivery>(prepared(ADMITTED_BEFORE, [graceMs / 1000]))).rows;
  }

  /** The job rows of those of these deliveries still admitted. */
  async jobRows(deliveries: string[]): Promise<DeliveryRow[]> {
    if (!deliveries.length) return [];
    return (await this.pool.query<DeliveryRow>(prepared(JOB_ROWS_OF, [deliveries]))).rows;
  }

  /** Recover: the endpoint's failed deliveries of events created in [since, until], back to waiting. */
  async requeueFailed(
    company: string,
    endpoint: string,
    since: Date,
    until: Date | null,
  ): Promise<QueuedDelivery[]> {
    const { rows } = await this.pool.query<QueuedDelivery>(REQUEUE_FAILED, [company, endpoint, since, until]);
    return rows.sort((a, b) => a.event_created_at.getTime() - b.event_created_at.getTime());
  }

  /** Resend: one event's delivery to the endpoint, back to waiting (made again if it was delivered). */
  async requeueOne(company: string, endpoint: string, eventId: string): Promise<QueuedDelivery | undefined> {
    const { rows } = await this.pool.query<QueuedDelivery>(REQUEUE_ONE, [company, endpoint, eventId]);
    return rows[0];
  }

  /** One stored event of the company, if `readable` (names; null: all) has it, with each endpoint. */
  async eventRouting(company: string, eventId: string, readable: ReadableEvents): Promise<EventRoutingRow[]> {
    return (await this.pool.query<EventRoutingRow>(EVENT_ROUTING, [company, eventId, readable])).rows;
  }

  /** What an endpoint's deliveries are doing now. */
  async queueCounts(endpoint: string): Promise<QueueCounts> {
    return (await this.pool.query<QueueCounts>(QUEUE_COUNTS, [endpoint])).rows[0];
  }

  /** Retention: whether a pending delivery needs an event of [from, to) (`from` null: open). */
  async pendingInEventRange(client: InTransaction, from: string | null, to: string): Promise<boolean> {
    return (await client.query(PENDING_IN_EVENT_RANGE, [from, to])).rows[0].pending;
  }

  /** Retention: deletes the failed deliveries of [from, to)'s events, going with them. */
  async dropFailedInEventRange(client: InTransaction, from: string | null, to: string): Promise<void> {
    await client.query(DROP_FAILED_IN_EVENT_RANGE, [from, to]);
  }

  /** Retention: which of these events a pending delivery needs. */
  async pendingEventsOf(client: InTransaction, events: string[]): Promise<string[]> {
    return (await client.query(PENDING_EVENTS_OF, [events])).rows.map((row) => row.event_id);
  }

  /** Retention: deletes the failed deliveries of these events, going with them. */
  async dropFailedOfEvents(client: InTransaction, events: string[]): Promise<void> {
    await client.query(DROP_FAILED_OF_EVENTS, [events]);
  }

  /** Dead rows and statistics of the tables delivery churns (upkeep.sql.ts). */
  async churnStats(): Promise<ChurnStats[]> {
    return (await this.pool.query(CHURN_STATS, [CHURN_TABLES])).rows;
  }

  /** VACUUM (ANALYZE), or ANALYZE alone, of one of them: outside any transaction. */
  async vacuum(table: ChurnTable, vacuum: boolean): Promise<void> {
    await this.pool.query(vacuumStatement(table, vacuum));
  }
}
