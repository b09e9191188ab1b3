/*
 * A company's rows in the store's tables, for `companies:delete` (apps/cli): counted, and deleted with the
 * company. Its deliveries, events and request log go with it by their foreign keys; the delete takes what
 * a key did not.
 */

/** How many rows of each of the store's tables the company ($1) has, a column per table. */
export const COMPANY_ROWS = `
SELECT (SELECT count(*) FROM webhook_deliveries WHERE company_uuid = $1)::int AS webhook_deliveries,
  (SELECT count(*) FROM webhook_events WHERE company_uuid = $1)::int AS webhook_events,
  (SELECT count(*) FROM webhook_request_logs WHERE company_uuid = $1)::int AS webhook_request_logs`;

/** Deletes the company's ($1) rows left in the store's tables. */
export const DELETE_COMPANY_ROWS = `
WITH deliveries AS (DELETE FROM webhook_deliveries WHERE company_uuid = $1),
  events AS (DELETE FROM webhook_events WHERE company_uuid = $1),
  logs AS (DELETE FROM webhook_request_logs WHERE company_uuid = $1)
SELECT 1`;
