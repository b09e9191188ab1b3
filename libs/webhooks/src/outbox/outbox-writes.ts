/*
 * What the outbox writer needs of the store, which owns webhook_events (store/outbox.store.ts implements
 * it): the writer turns a write's changes into events, the store writes them. Provided as OUTBOX_WRITES.
 */

/** The injection token of the store's OutboxWrites. */
export const OUTBOX_WRITES = Symbol('OutboxWrites');

/** An event of a write, before it has an id and an envelope. */
export interface OutboxEvent {
  name: string;
  /** The record it is about (its `data`). */
  record: unknown;
  additionalData: Record<string, unknown>;
}

/** A connection holding a write's transaction (a TypeORM QueryRunner). */
export interface WriteConnection {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

/** SQL expressions of a one-statement write's event. */
export interface StatementEvent {
  /** Names the write's CTEs (`<prefix>outbox`, `<prefix>queued`). */
  prefix: string;
  /** The write's CTE whose row is the record: `record` (its JSON text), `changes`, `changed`. */
  source: string;
  id: string;
  company: string;
  name: string;
  createdAt: string;
  /** The JSON text of its additionalData. */
  additionalData: string;
  /** Whether to NOTIFY in the write's own transaction (a boolean). */
  notify: string;
  /** The write's trace context (text) when it is traced; the event keeps none otherwise. */
  traceContext?: string;
}

export interface OutboxWrites {
  /**
   * Writes a transaction's events to the outbox on its own connection, queued for the relay, in one round
   * trip; with `notify`, the relay is woken at commit. Each event keeps `traceContext`, the write's trace.
   */
  write(
    connection: WriteConnection,
    company: string,
    events: OutboxEvent[],
    notify: boolean,
    traceContext?: string,
  ): Promise<void>;
  /**
   * A one-statement write's event, as CTEs of that statement, and the SELECT column that wakes the relay:
   * written when the write changed its record.
   */
  inStatement(event: StatementEvent): { with: string[]; select: string[] };
}
