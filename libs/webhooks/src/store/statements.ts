import { ADMIT, DUE_ENDPOINTS, FAIL_UNDELIVERABLE, LOCK_ENDPOINTS, STILL_ADMITTED } from './admit.sql';
import { FAN_OUT } from './fan-out.sql';
import { RECORD_ATTEMPTS } from './record.sql';
import { ADMITTED_BEFORE, JOB_ROWS_OF, QUEUE_COUNTS } from './recovery.sql';
import { REQUEUE_FAILED, REQUEUE_ONE } from './requeue.sql';
import {
  COMPANY_DELIVERIES,
  DROP_FAILED_IN_EVENT_RANGE,
  DROP_FAILED_OF_EVENTS,
  PENDING_EVENTS_OF,
  PENDING_IN_EVENT_RANGE,
} from './retention.sql';
import { EVENT_ROUTING } from './routing.sql';
import { EVENT_DELIVERIES, LIST_EVENTS, LIST_UNSUCCESSFUL_EVENTS } from './events.sql';
import { CHURN_STATS } from './upkeep.sql';

/**
 * Every statement over webhook_deliveries, by the name of its snapshot (snapshots/<name>.sql): the text
 * PostgreSQL receives, composed from this folder's fragments, kept for review. `npm run sql:snapshots`
 * writes them again; store/sql-snapshots.spec.ts fails while one differs from its statement.
 */
export const DELIVERY_STATEMENTS: Record<string, string> = {
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
  'company-deliveries': COMPANY_DELIVERIES,
  'event-routing': EVENT_ROUTING,
  'list-events': LIST_EVENTS,
  'list-unsuccessful-events': LIST_UNSUCCESSFUL_EVENTS,
  'event-deliveries': EVENT_DELIVERIES,
  'churn-stats': CHURN_STATS,
};
