import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ReadReplicasHost, poolOf, readQuery } from '@wharf/core';
import { DataSource } from 'typeorm';
import { newEventId } from '../outbox/event-id';
import { Attempt } from '../transport/destination';
import {
  ACTIVITY_BUCKETS,
  LOG_TEST_SEND,
  ROWS_AFTER,
  ROWS_SINCE,
  TEST_ENVELOPE,
  TEST_RECEIVERS,
} from './request-logs.sql';

/** A log row as the activity stream sends it, with its position (sent_at in epoch µs, id). */
export interface StreamRow {
  uuid: string;
  id: number;
  at_us: string;
  sent_at: Date;
  [column: string]: unknown;
}

/** A stream position: sent_at in epoch µs and the row's id. */
export interface StreamPosition {
  us: string;
  id: number;
}

export interface ActivityBucket {
  at: Date;
  successful: number;
  failed: number;
  retrying: number;
}

/** What the activity chart counts (see ACTIVITY_BUCKETS). */
export interface ActivityQuery {
  company: string;
  from: Date;
  to: Date;
  endpoint: string | null;
  /** Retries in the retry schedule: a failed attempt up to it is retrying. */
  retries: number;
  interval: 'hour' | 'minute';
  /** Only the attempts of these events (those the caller may read); null: every event. */
  events: readonly string[] | null;
}

/** A test send's event: its id and the body sent. */
export interface TestEvent {
  id: string;
  name: string;
  body: string;
}

/**
 * The request log's reads and writes outside delivery (statements in request-logs.sql.ts): the activity
 * chart and live stream, and test sends. A delivery's attempts are logged by DeliveryStore.record.
 */
@Injectable()
export class RequestLogStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() private readonly replicas?: ReadReplicasHost,
  ) {}

  private get pool() {
    return poolOf(this.dataSource);
  }

  /** Attempts per bucket, only the buckets with attempts, oldest first; may be served by a replica. */
  async activity(query: ActivityQuery): Promise<ActivityBucket[]> {
    const { company, from, to, endpoint, retries, interval, events } = query;
    const values = [company, from, to, endpoint, retries, interval, events];
    return (
      await readQuery<ActivityBucket>(this.pool, { text: ACTIVITY_BUCKETS, values }, this.replicas?.replicas)
    ).rows;
  }

  // The live stream's reads stay on the primary: it is woken by the primary's NOTIFY, and a replay after a
  // reconnect must hold every row committed before the stream resumed, which a replica may not have yet.

  /** The company's rows sent at or after `sinceMs`, after `after` when given, at most `limit`. */
  async rowsSince(
    company: string,
    sinceMs: number,
    after: StreamPosition | undefined,
    limit: number,
  ): Promise<StreamRow[]> {
    const params = [company, sinceMs, after?.us ?? null, after?.id ?? null, limit];
    return (await this.pool.query<StreamRow>(ROWS_SINCE, params)).rows;
  }

  /** The company's rows after a stream position (from the last day at most), at most `limit`. */
  async rowsAfter(company: string, position: StreamPosition, limit: number): Promise<StreamRow[]> {
    return (await this.pool.query<StreamRow>(ROWS_AFTER, [company, position.us, position.id, limit])).rows;
  }

  /** A test event's envelope, built as every event's is, around `record` and its additionalData. */
  async testEvent(
    name: string,
    record: Record<string, unknown>,
    additionalData: Record<string, unknown>,
  ): Promise<TestEvent> {
    const id = newEventId();
    const params = [
      id,
      name,
      new Date().toISOString(),
      JSON.stringify(record),
      JSON.stringify(additionalData),
    ];
    const { rows } = await this.pool.query<{ body: string }>(TEST_ENVELOPE, params);
    return { id, name, body: rows[0].body };
  }

  /** The company's endpoints a test event would be fanned out to (enabled, subscribed, filter matching). */
  async receiversOf(company: string, event: TestEvent): Promise<string[]> {
    const { rows } = await this.pool.query<{ uuid: string }>(TEST_RECEIVERS, [
      company,
      event.name,
      event.body,
    ]);
    return rows.map((row) => row.uuid);
  }

  /** Logs a test send's one attempt; returns the row's uuid. */
  async logTestSend(company: string, endpoint: string, event: TestEvent, attempt: Attempt): Promise<string> {
    const { rows } = await this.pool.query<{ uuid: string }>(LOG_TEST_SEND, [
      company,
      endpoint,
      event.id,
      event.name,
      attempt.url,
      JSON.stringify(attempt.request_headers),
      attempt.request_body,
      attempt.response_status,
      attempt.response_headers === null ? null : JSON.stringify(attempt.response_headers),
      attempt.response_body,
      attempt.duration_ms,
      attempt.error,
      attempt.status,
      attempt.sent_at,
    ]);
    return rows[0].uuid;
  }
}
