/*
 * The statements that redact a company's stored payloads for an erasure (docs/data-lifecycle.md,
 * "Erasure"). A batch reads the next rows that mention the record (its uuid in the text), in (created_at,
 * id) order after the last batch's, and locks only those.
 */

/** Whether the company ($1) emitted a `<resource>.deleted` event ($2) of the record ($3): a deleted record. */
export const DELETED_RECORD = `
SELECT EXISTS (
  SELECT 1 FROM webhook_events e
  WHERE e.company_uuid = $1 AND e.name = $2 AND e.payload -> 'data' ->> 'id' = $3::text
) AS deleted`;

/** The company's ($1) next events after ($2, $3) mentioning the record ($4), at most $5, locked. */
export const EVENTS_BATCH = `
SELECT e.created_at::text AS at, e.id::text AS id, e.event_id, e.payload::text AS payload
FROM webhook_events e
WHERE e.company_uuid = $1 AND (e.created_at, e.id) > ($2::timestamptz, $3::bigint)
  AND strpos(e.payload::text, $4) > 0
ORDER BY e.created_at, e.id LIMIT $5 FOR UPDATE`;

/** Writes redacted payloads ($1 event ids, $2 payloads). */
export const UPDATE_EVENTS = `
UPDATE webhook_events e SET payload = v.payload::json
FROM unnest($1::text[], $2::text[]) AS v(event_id, payload) WHERE e.event_id = v.event_id`;

/** The company's ($1) next request-log rows after ($2, $3) whose bodies mention the record ($4), locked. */
export const LOGS_BATCH = `
SELECT l.created_at::text AS at, l.id::text AS id, l.sent_at::text AS sent_at, l.request_body, l.response_body
FROM webhook_request_logs l
WHERE l.company_uuid = $1 AND (l.created_at, l.id) > ($2::timestamptz, $3::int)
  AND (strpos(l.request_body, $4) > 0 OR strpos(l.response_body, $4) > 0)
ORDER BY l.created_at, l.id LIMIT $5 FOR UPDATE`;

/** Writes redacted bodies ($1 ids, $2 sent_at, the partition key, $3 request and $4 response bodies). */
export const UPDATE_LOGS = `
UPDATE webhook_request_logs l SET request_body = v.request_body, response_body = v.response_body
FROM unnest($1::int[], $2::timestamptz[], $3::text[], $4::text[]) AS v(id, sent_at, request_body, response_body)
WHERE l.id = v.id AND l.sent_at = v.sent_at`;
