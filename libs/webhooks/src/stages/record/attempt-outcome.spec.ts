import { Attempt } from '../../transport/destination';
import { decideOutcome } from './attempt-outcome';

const schedule = [5_000, 300_000];
const result = (fields: Partial<Attempt>) =>
  ({ status: 'failed', permanent: false, response_status: 500, ...fields }) as Attempt;

describe('decideOutcome', () => {
  it('delivers a success, whatever the attempt', () => {
    expect(decideOutcome(result({ status: 'successful' }), 3, schedule)).toEqual({
      outcome: 'successful',
      nextAttemptInMs: 0,
    });
  });

  it('retries a failure with attempts left, after the step of the schedule (jittered)', () => {
    const decided = decideOutcome(result({}), 1, schedule);
    expect(decided.outcome).toBe('retrying');
    expect(decided.nextAttemptInMs).toBeGreaterThanOrEqual(4_000);
    expect(decided.nextAttemptInMs).toBeLessThanOrEqual(6_000);
  });

  it('fails the last attempt of the schedule, and a permanent refusal at once', () => {
    expect(decideOutcome(result({}), 3, schedule).outcome).toBe('failed');
    expect(decideOutcome(result({ permanent: true, response_status: 410 }), 1, schedule).outcome).toBe(
      'failed',
    );
  });

  it("honours a 429's Retry-After within the schedule's bounds", () => {
    expect(decideOutcome(result({ response_status: 429, retryAfterMs: 60_000 }), 1, schedule)).toEqual({
      outcome: 'retrying',
      nextAttemptInMs: 60_000,
    });
  });
});
