import type { AttemptRecord } from './attempt-record';

/**
 * The wire format of a batch of attempt records: one JSON document, which RECORD_ATTEMPTS reads with
 * `jsonb_to_recordset`. The columns are named once, here: the worker's rows may only use these names
 * (AttemptBatchRow) and the statement reads them under these names and types (attemptBatchRows). On the
 * wire each record's keys are single letters (`a` for the first column below, `b` for the second…): the
 * document is parsed inside the recording statement, the pipeline's serial stage, so it is kept small.
 */
export const ATTEMPT_BATCH_COLUMNS = {
  company_uuid: 'uuid',
  webhook_endpoint_uuid: 'uuid',
  webhook_delivery_uuid: 'uuid',
  event_id: 'text',
  event: 'text',
  attempt: 'int',
  url: 'text',
  request_headers: 'jsonb',
  response_status: 'int',
  response_headers: 'jsonb',
  response_body: 'text',
  duration_ms: 'int',
  error: 'text',
  status: 'text',
  sent_at: 'timestamptz',
  outcome: 'text',
  next_attempt_in_ms: 'float8',
  /** Only when the body sent is not the event's payload as stored (a thin envelope); else null. */
  request_body: 'text',
} as const;

export type AttemptBatchColumn = keyof typeof ATTEMPT_BATCH_COLUMNS;

/** One record of a batch; a column left out reads as null. */
export type AttemptBatchRow = Partial<Record<AttemptBatchColumn, unknown>>;

const COLUMNS = Object.keys(ATTEMPT_BATCH_COLUMNS) as AttemptBatchColumn[];
// a to q: a 27th column would need another scheme (attempt-batch.spec.ts counts them).
const WIRE_KEYS = COLUMNS.map((_, i) => String.fromCharCode(97 + i));

/** The batch's rows under their column names, read from the JSON document in parameter `param`. */
export const attemptBatchRows = (
  param: string,
) => `SELECT ${COLUMNS.map((column, i) => `x.${WIRE_KEYS[i]} AS ${column}`).join(', ')}
  FROM jsonb_to_recordset(${param}::jsonb)
  AS x(${COLUMNS.map((column, i) => `${WIRE_KEYS[i]} ${ATTEMPT_BATCH_COLUMNS[column]}`).join(', ')})`;

/** An attempt record as a row of the batch. */
export function attemptBatchRow({
  delivery,
  attempt,
  result,
  outcome,
  nextAttemptInMs,
  sentBody,
}: AttemptRecord): AttemptBatchRow {
  return {
    company_uuid: delivery.company_uuid,
    webhook_endpoint_uuid: delivery.endpoint_uuid,
    webhook_delivery_uuid: delivery.uuid,
    event_id: delivery.event_id,
    event: delivery.event,
    attempt,
    url: result.url,
    request_headers: result.request_headers,
    response_status: result.response_status,
    response_headers: result.response_headers,
    response_body: result.response_body,
    duration_ms: result.duration_ms,
    error: result.error,
    status: result.status,
    sent_at: result.sent_at,
    outcome,
    next_attempt_in_ms: nextAttemptInMs,
    request_body: sentBody,
  };
}

/** The JSON document of a batch, for attemptBatchRows. */
export function attemptBatchJson(rows: AttemptBatchRow[]): string {
  return JSON.stringify(
    rows.map((row) => {
      const wire: Record<string, unknown> = {};
      for (let i = 0; i < COLUMNS.length; i++) wire[WIRE_KEYS[i]] = row[COLUMNS[i]];
      return wire;
    }),
  );
}
