import { Attempt } from '../transport/destination';
import { ADMISSION_CHUNKS, QUEUE_WINDOW_CAPS } from '../tuning';
import { AttemptRecord, healthChanges } from './attempt-record';

const attempt = (endpoint: string, result: Partial<Attempt>) =>
  ({ delivery: { endpoint_uuid: endpoint }, result }) as AttemptRecord;
const ok = { status: 'successful', response_status: 200, error: null } as const;
const timeout = { status: 'failed', response_status: null, error: 'timeout' } as const;
const error500 = { status: 'failed', response_status: 500, error: null } as const;

describe('healthChanges', () => {
  it('counts the timeouts of each endpoint in the batch, whatever else happened', () => {
    const changes = healthChanges([
      attempt('a', timeout),
      attempt('a', error500),
      attempt('a', timeout),
      attempt('b', ok),
      attempt('b', timeout),
    ]);
    expect(Object.fromEntries(changes)).toEqual({
      a: { change: 'failing', timeouts: 2 },
      b: { change: 'healthy', timeouts: 1 },
    });
  });

  it('lets a 410 win over a success in the same batch', () => {
    const changes = healthChanges([attempt('a', ok), attempt('a', { ...error500, response_status: 410 })]);
    expect(changes.get('a')).toEqual({ change: 'gone', timeouts: 0 });
  });
});

describe('admission numbers', () => {
  it('leave room for every chunk of successors one recording statement admits to an endpoint', () => {
    // The record numbers up to QUEUE_WINDOW_CAPS chunks per statement; more would run into the next one's.
    expect(QUEUE_WINDOW_CAPS).toBeLessThanOrEqual(ADMISSION_CHUNKS);
  });
});
