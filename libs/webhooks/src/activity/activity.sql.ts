import type { StreamPosition, StreamRow } from '../store/request-logs.store';

/*
 * The activity routes' own statement, and the stream's events: the chart's counts and the stream's rows are
 * the request log's, read by RequestLogStore (store/request-logs.sql.ts).
 */

/** Whether the company has this endpoint. $1 endpoint, $2 company. */
export const COMPANY_ENDPOINT = 'SELECT 1 FROM webhook_endpoints WHERE uuid = $1 AND company_uuid = $2';

/** The stream event of a row: its id is the row's position (sent_at µs and id), which Last-Event-ID names. */
export function rowEvent(row: StreamRow): string {
  const { id, at_us: at, ...fields } = row;
  const record = { id: fields.uuid, ...fields };
  return `id: ${at}-${id}\nevent: request_log\ndata: ${JSON.stringify(record)}\n\n`;
}

/** The position a Last-Event-ID names, or undefined when it is not one of ours. */
export function positionOf(lastEventId: string | undefined): StreamPosition | undefined {
  const match = /^(\d{1,19})-(\d{1,10})$/.exec(lastEventId ?? '');
  return match && Number(match[2]) <= 2 ** 31 - 1 ? { us: match[1], id: Number(match[2]) } : undefined;
}
