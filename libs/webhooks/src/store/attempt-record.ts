import { Attempt } from '../transport/destination';
import { AttemptOutcome } from './delivery-state';

/** One attempt, as the dispatch stage hands it to the record. */
export interface AttemptRecord {
  delivery: {
    uuid: string;
    company_uuid: string;
    endpoint_uuid: string;
    event_id: string;
    event: string;
  };
  attempt: number;
  result: Attempt;
  outcome: AttemptOutcome;
  /** When `retrying`: how long until the next attempt. */
  nextAttemptInMs: number;
  /** The body sent, when it is not the event's payload as stored (a thin envelope). */
  sentBody?: string;
}

export type HealthChange = 'gone' | 'healthy' | 'failing';

/**
 * Per endpoint, the one health change a batch of attempts makes (a 410 wins, then any success, then
 * failure) and how many of its attempts timed out: the parameters of the record's health part.
 */
export function healthChanges(
  records: AttemptRecord[],
): Map<string, { change: HealthChange; timeouts: number }> {
  const changes = new Map<string, { change: HealthChange; timeouts: number }>();
  for (const { delivery, result } of records) {
    let health = changes.get(delivery.endpoint_uuid);
    if (!health) changes.set(delivery.endpoint_uuid, (health = { change: 'failing', timeouts: 0 }));
    if (result.response_status === 410) health.change = 'gone';
    else if (result.status === 'successful') {
      if (health.change !== 'gone') health.change = 'healthy';
    }
    if (result.error === 'timeout') health.timeouts++;
  }
  return changes;
}
