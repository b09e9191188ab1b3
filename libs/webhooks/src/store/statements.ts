import { ADMIT, DUE_ENDPOINTS, FAIL_UNDELIVERABLE, LOCK_ENDPOINTS, STILL_ADMITTED } from './admit.sql';
import { COMPANY_ROWS, DELETE_COMPANY_ROWS } from './company.sql';
import { FAN_OUT } from './fan-out.sql';
import { INSERT_EVENTS, OUTBOX_LAG } from './outbox.sql';
import { COLUMN_LIST, PARTITION_BOUNDS, ROW_ESTIMATE, TABLE_EXISTS } from './partitions.sql';
import { RECORD_ATTEMPTS } from './record.sql';
import { ADMITTED_BEFORE, JOB_ROWS_OF, QUEUE_COUNTS } from './recovery.sql';
import { DELETED_RECORD, EVENTS_BATCH, LOGS_BATCH, UPDATE_EVENTS, UPDATE_LOGS } from './redaction.sql';
import {
  ACTIVITY_BUCKETS,
  LOG_TEST_SEND,
  ROWS_AFTER,
  ROWS_SINCE,
  TEST_ENVELOPE,
  TEST_RECEIVERS,
} from './request-logs.sql';
import { REQUEUE_FAILED, REQUEUE_ONE } from './requeue.sql';
import {
  DROP_FAILED_IN_EVENT_RANGE,
  DROP_FAILED_OF_EVENTS,
  PENDING_EVENTS_OF,
  PENDING_IN_EVENT_RANGE,
} from './retention.sql';
import { EVENT_ROUTING } from './routing.sql';
import { EVENT_DELIVERIES, LIST_EVENTS, LIST_UNSUCCESSFUL_EVENTS } from './events.sql';
import { CHURN_STATS } from './upkeep.sql';

/**
 * Every fixed statement of the store (over webhook_deliveries, webhook_events, webhook_request_logs), by
 * the name of its snapshot (snapshots/<name>.sql): the text PostgreSQL receives, composed from this
 * folder's fragments, kept for review. The statements built per table or partition are snapshotted from
 * examples (sql-snapshots.spec.ts). `npm run sql:snapshots` writes them again; store/sql-snapshots.spec.ts
 * fails while one differs from its statement.
 */
export const STORE_STATEMENTS: Record<string, string> = {
  // Delivery
  'fan-out': FAN_OUT,
  'lock-endpoints': LOCK_ENDPOINTS,
  admit: ADMIT,
  'due-endpoints': DUE_ENDPOINTS,
  'record-attempts': RECORD_ATTEMPTS,
  'fail-undeliverable': FAIL_UNDELIVERABLE,
  'still-admitted': STILL_ADMITTED,
  'admitted-before': ADMITTED_BEFORE,
  'job-rows-of': JOB_ROWS_OF,
  'queue-counts': QUEUE_COUNTS,
  'requeue-failed': REQUEUE_FAILED,
  'requeue-one': REQUEUE_ONE,
  'pending-in-event-range': PENDING_IN_EVENT_RANGE,
  'drop-failed-in-event-range': DROP_FAILED_IN_EVENT_RANGE,
  'pending-events-of': PENDING_EVENTS_OF,
  'drop-failed-of-events': DROP_FAILED_OF_EVENTS,
  'event-routing': EVENT_ROUTING,
  'churn-stats': CHURN_STATS,
  // The outbox and the events API
  'insert-events': INSERT_EVENTS,
  'outbox-lag': OUTBOX_LAG,
  'list-events': LIST_EVENTS,
  'list-unsuccessful-events': LIST_UNSUCCESSFUL_EVENTS,
  'event-deliveries': EVENT_DELIVERIES,
  // The request log outside delivery
  'activity-buckets': ACTIVITY_BUCKETS,
  'log-rows-since': ROWS_SINCE,
  'log-rows-after': ROWS_AFTER,
  'test-envelope': TEST_ENVELOPE,
  'log-test-send': LOG_TEST_SEND,
  'test-receivers': TEST_RECEIVERS,
  // Erasure
  'deleted-record': DELETED_RECORD,
  'events-to-redact': EVENTS_BATCH,
  'redact-events': UPDATE_EVENTS,
  'logs-to-redact': LOGS_BATCH,
  'redact-logs': UPDATE_LOGS,
  // Partitions, and a company's rows
  'partition-bounds': PARTITION_BOUNDS,
  'column-list': COLUMN_LIST,
  'table-exists': TABLE_EXISTS,
  'row-estimate': ROW_ESTIMATE,
  'company-rows': COMPANY_ROWS,
  'delete-company-rows': DELETE_COMPANY_ROWS,
};
