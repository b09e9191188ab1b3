/*
 * The tables the store owns, by name. Only the store's statements (and the migrations) name them: the
 * partition upkeep and the request-log resource take their names from here.
 */

/** The outbox: one row per event, partitioned by event id (stages/lifecycle/partitioned-tables.ts). */
export const EVENTS_TABLE = 'webhook_events';
/** The relay's queue: the ids of outbox events not fanned out yet (migration 1700000000109). */
export const UNDISPATCHED_EVENTS = 'webhook_events_undispatched';
/** One row per delivery attempt or test send, partitioned by the time it was sent. */
export const REQUEST_LOGS_TABLE = 'webhook_request_logs';
/** The deliveries of events to endpoints. */
export const DELIVERIES_TABLE = 'webhook_deliveries';
