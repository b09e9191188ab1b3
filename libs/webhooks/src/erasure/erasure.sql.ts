/*
 * The statements of erasure requests (docs/data-lifecycle.md, "Erasure"), in webhook_erasures. The batches
 * that redact a company's stored payloads are the store's (store/redaction.sql.ts).
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
