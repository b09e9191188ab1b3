/*
 * The statements of erasure (docs/data-lifecycle.md, "Erasure"): its requests in webhook_erasures, and the
 * batches that redact a company's stored payloads. A batch reads the next rows that mention the record
 * (its uuid in the text), in (created_at, id) order after the last batch's, and locks only those.
 */

const UNFINISHED = `status IN ('pending', 'running')`;

/** An erasure as the API serves it. */
const JOB = `uuid, status, resource, record_uuid AS record_id, rows_redacted,
  requested_by_api_key_uuid AS requested_by, error, created_at, finished_at`;

/** A new erasure ($1 company, $2 resource, $3 record, $4 API key), or the unfinished one of that record. */
export const REQUEST_ERASURE = `
WITH inserted AS (
  INSERT INTO webhook_erasures (company_uuid, resource, record_uuid, requested_by_api_key_uuid)
  VALUES ($1, $2, $3, $4)
  ON CONFLICT (company_uuid, record_uuid) WHERE ${UNFINISHED} DO NOTHING
  RETURNING ${JOB}
)
SELECT * FROM inserted
UNION ALL
SELECT ${JOB} FROM webhook_erasures
WHERE company_uuid = $1 AND record_uuid = $3 AND ${UNFINISHED} AND NOT EXISTS (SELECT 1 FROM inserted)`;

/** One erasure of the company ($1 uuid, $2 company). */
export const ERASURE_OF = `SELECT ${JOB} FROM webhook_erasures WHERE uuid = $1 AND company_uuid = $2`;

/** Whether the company ($1) emitted a `<resource>.deleted` event ($2) of the record ($3): a deleted record. */
export const DELETED_RECORD = `
SELECT EXISTS (
  SELECT 1 FROM webhook_events e
  WHERE e.company_uuid = $1 AND e.name = $2 AND e.payload -> 'data' ->> 'id' = $3::text
) AS deleted`;

/** Takes the oldest pending erasure, or a running one whose worker stopped beating ($1 seconds). */
export const CLAIM_ERASURE = `
UPDATE webhook_erasures SET status = 'running', started_at = coalesce(started_at, now()), heartbeat_at = now()
WHERE uuid = (
  SELECT uuid FROM webhook_erasures
  WHERE ${UNFINISHED} AND (status = 'pending' OR heartbeat_at < now() - make_interval(secs => $1))
  ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED
)
RETURNING uuid, company_uuid, record_uuid::text AS record_uuid`;

/** Counts a batch's redacted rows ($2) on erasure $1, in the batch's transaction, and beats. */
export const COUNT_REDACTED = `
UPDATE webhook_erasures SET rows_redacted = rows_redacted + $2, heartbeat_at = now() WHERE uuid = $1`;

/** Gives erasure $1 back (its worker is stopping): the next worker starts it again. */
export const RELEASE_ERASURE = `UPDATE webhook_erasures SET status = 'pending', heartbeat_at = NULL WHERE uuid = $1`;

/** Ends erasure $1 as $2 (done or failed, with error $3). */
export const FINISH_ERASURE = `
UPDATE webhook_erasures SET status = $2, error = $3, finished_at = now() WHERE uuid = $1`;

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
