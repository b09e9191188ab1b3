import { InTransaction } from './delivery.store';
import { DELETED_RECORD, EVENTS_BATCH, LOGS_BATCH, UPDATE_EVENTS, UPDATE_LOGS } from './redaction.sql';

/** A row to redact, as text columns. */
export type RedactionRow = Record<string, string | null>;

/**
 * A table an erasure redacts, in batches inside short transactions: `select` reads the company's next rows
 * after the keyset cursor `after` that mention `record`, at most `limit`, locked; `update` writes changed
 * rows back, one array per column.
 */
export interface RedactedTable {
  select(
    client: InTransaction,
    company: string,
    after: string[],
    record: string,
    limit: number,
  ): Promise<RedactionRow[]>;
  update(client: InTransaction, columns: unknown[][]): Promise<void>;
}

/** A RedactedTable from its two statements: `select` takes ($1 company, …after, record, limit). */
export const redactedTable = (select: string, update: string): RedactedTable => ({
  select: async (client, company, after, record, limit) =>
    (await client.query(select, [company, ...after, record, limit])).rows,
  update: async (client, columns) => void (await client.query(update, columns)),
});

/** Event payloads, by (created_at, id); a changed row is (event_id, payload). */
export const EVENT_PAYLOADS = redactedTable(EVENTS_BATCH, UPDATE_EVENTS);

/** Request-log bodies, by (created_at, id); a changed row is (id, sent_at, request_body, response_body). */
export const LOG_BODIES = redactedTable(LOGS_BATCH, UPDATE_LOGS);

/** Whether the company emitted `<resource>.deleted` (`event`) of the record `id`: a deleted record of its. */
export async function emittedDeleted(db: InTransaction, company: string, event: string, id: string) {
  const { rows } = await db.query(DELETED_RECORD, [company, event, id]);
  return rows[0].deleted as boolean;
}
