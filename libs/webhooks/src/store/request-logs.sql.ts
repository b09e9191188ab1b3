import { envelopeSql } from '../outbox/envelope';
import { OPERATIONAL_EVENTS_SQL } from '../outbox/operational-events';
import { receivesSql } from './fan-out.sql';

/*
 * The request log's statements outside delivery (a delivery's attempts are logged by record.sql.ts): the
 * activity chart and live stream, and test sends. The activity reads go through the log's (company_uuid,
 * sent_at, id) index, within a sent_at range (which also prunes partitions).
 */

/** The log columns a stream event carries: a row as GET /int/v1/webhook-request-logs lists it. */
const LOG_COLUMNS = `uuid, webhook_endpoint_uuid, event_id, event, attempt, test, url, request_headers, request_body,
  response_status, response_headers, response_body, duration_ms, error, status, sent_at, created_at, updated_at,
  id, (extract(epoch FROM sent_at) * 1000000)::bigint::text AS at_us`;

/**
 * Attempts per bucket (UTC hours or minutes) of the company, or of one endpoint: test sends left out. A
 * failed attempt is "retrying" while the retry schedule has an attempt after it ($5: the schedule's length),
 * "failed" once it was the last.
 * $1 company, $2 from, $3 to, $4 endpoint or null, $5 retries in the schedule, $6 'hour' or 'minute', $7
 * the events counted (those the caller may read) or null for all.
 */
export const ACTIVITY_BUCKETS = `
SELECT date_trunc($6, sent_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS at,
  count(*) FILTER (WHERE status = 'successful')::int AS successful,
  count(*) FILTER (WHERE status = 'failed' AND attempt > $5)::int AS failed,
  count(*) FILTER (WHERE status = 'failed' AND attempt <= $5)::int AS retrying
FROM webhook_request_logs
WHERE company_uuid = $1 AND sent_at >= $2 AND sent_at < $3 AND NOT test
  AND ($4::uuid IS NULL OR webhook_endpoint_uuid = $4::uuid)
  AND ($7::text[] IS NULL OR event = ANY($7::text[]))
GROUP BY 1 ORDER BY 1`;

/**
 * The company's rows sent at or after $2 (epoch ms), after the position ($3 epoch µs, $4 id) when given:
 * a batch's rows once its NOTIFY arrives. $1 company, $5 how many.
 */
export const ROWS_SINCE = `
SELECT ${LOG_COLUMNS} FROM webhook_request_logs
WHERE company_uuid = $1 AND sent_at >= 'epoch'::timestamptz + $2::bigint * interval '1 millisecond'
  AND ($3::bigint IS NULL OR (sent_at, id) > ('epoch'::timestamptz + $3::bigint * interval '1 microsecond', $4::int))
ORDER BY sent_at, id LIMIT $5`;

/**
 * The company's rows after a stream position (epoch µs of sent_at, id): what a reconnecting client missed,
 * from the last day at most. $1 company, $2 and $3 the position, $4 how many.
 */
export const ROWS_AFTER = `
SELECT ${LOG_COLUMNS} FROM webhook_request_logs
WHERE company_uuid = $1 AND sent_at >= greatest('epoch'::timestamptz + $2::bigint * interval '1 microsecond', now() - interval '1 day')
  AND (sent_at, id) > ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::int)
ORDER BY sent_at, id LIMIT $4`;

/**
 * The envelope of a test send, built as every event's is (envelopeSql): $1 event id, $2 name, $3 time, $4
 * the record's JSON, $5 its additionalData's.
 */
export const TEST_ENVELOPE = `
SELECT ${envelopeSql({ id: '$1::text', event: '$2::text', createdAt: '$3::text', record: '$4::text', additionalData: '$5::text' })}::text AS body`;

/**
 * The one log row of a test send (no delivery, never retried): $1 company, $2 endpoint, $3 event id, $4
 * event, then the attempt ($5 url … $14 sent_at). Returns its uuid.
 */
export const LOG_TEST_SEND = `
INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, event_id, event, attempt, test, url,
  request_headers, request_body, response_status, response_headers, response_body, duration_ms, error, status, sent_at)
VALUES ($1, $2, $3, $4, 1, true, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING uuid`;

/**
 * The endpoints of company $1 that an event named $2 with the envelope $3 would be fanned out to (the
 * fan-out's rule), oldest first: a trigger's test sends.
 */
export const TEST_RECEIVERS = `
SELECT ep.uuid FROM webhook_endpoints ep
WHERE ep.company_uuid = $1 AND ${receivesSql('$2::text', '$3::jsonb', `$2::text = ANY(${OPERATIONAL_EVENTS_SQL})`)}
ORDER BY ep.created_at, ep.uuid`;
