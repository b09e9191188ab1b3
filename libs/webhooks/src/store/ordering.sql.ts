/**
 * A delivery's `entity_key, event_seq` (for endpoints with `ordering = 'entity'`), as fan-out sets them and
 * a resend sets them again: the record its event is about (the envelope's `data.id`) and the event's outbox
 * position; both null when its endpoint does not order. `ordered` is a boolean SQL expression, `payload` the
 * event's stored envelope, `seq` its outbox id.
 */
export const orderingColumns = (ordered: string, payload: string, seq: string) =>
  `CASE WHEN ${ordered} THEN (${payload})->'data'->>'id' END, CASE WHEN ${ordered} THEN ${seq} END`;
