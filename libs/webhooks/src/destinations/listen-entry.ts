/** The entries of a listen session's Redis stream, and the answers to them. */

/** What the CLI got back from the local URL it forwards to (or why it got nothing). */
export interface ListenAnswer {
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  /** The forward's own time, as the CLI measured it. */
  duration_ms: number;
  error: string | null;
}

/** One signed delivery on its way down a session's stream. */
export interface ListenDelivery {
  event: string;
  event_id: string;
  /** The Standard Webhooks headers (and content-type) the CLI forwards with the body. */
  headers: Record<string, string>;
  body: string;
  /** When the sender stops waiting for the answer (epoch ms): an entry read later is not forwarded. */
  deadline: number;
}

/** An entry of a session's stream: its id (the SSE event id a reconnect resumes after) and delivery. */
export interface ListenEntry {
  id: string;
  delivery: ListenDelivery;
}

/** A Redis stream entry id (`<ms>-<seq>`), as Last-Event-ID and answers carry it. */
export const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;

export function fieldsOf(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  return fields;
}

export function entryOf(id: string, flat: string[]): ListenEntry {
  const fields = fieldsOf(flat);
  return {
    id,
    delivery: {
      event: fields.event,
      event_id: fields.event_id,
      headers: JSON.parse(fields.headers) as Record<string, string>,
      body: fields.body,
      deadline: Number(fields.deadline),
    },
  };
}
