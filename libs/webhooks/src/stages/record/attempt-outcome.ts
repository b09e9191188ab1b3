import { AttemptOutcome } from '../../store/delivery-state';
import { Attempt } from '../../transport/destination';
import { maxAttempts, retryDelay } from '../../retry-schedule';

export interface Decided {
  outcome: AttemptOutcome;
  /** When `retrying`: how long until the next attempt (the schedule's step, or the answer's Retry-After). */
  nextAttemptInMs: number;
}

/**
 * What an attempt's result means for its delivery: delivered on a 2xx in time; failed for good when the
 * answer says so (410, a blocked target) or it was the last attempt of the schedule; otherwise retrying.
 */
export function decideOutcome(result: Attempt, attempt: number, schedule: number[]): Decided {
  if (result.status === 'successful') return { outcome: 'successful', nextAttemptInMs: 0 };
  if (result.permanent || attempt >= maxAttempts(schedule)) return { outcome: 'failed', nextAttemptInMs: 0 };
  return { outcome: 'retrying', nextAttemptInMs: retryDelay(schedule, attempt, result.retryAfterMs) };
}
