import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { toErrorResponse } from './error-response';
import { unavailableDependency } from './outage';

function pgError(code: string, message = 'boom'): DatabaseError {
  const error = new DatabaseError(message, 0, 'error');
  error.code = code;
  return error;
}

describe('unavailableDependency', () => {
  it.each([
    [
      'ECONNREFUSED',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['57P01 admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['57P03 starting up', pgError('57P03', 'the database system is starting up')],
    ['08006 connection failure', pgError('08006')],
    ['connection terminated', new Error('Connection terminated unexpectedly')],
    ['pool timeout', new Error('timeout exceeded when trying to connect')],
    [
      'a wrapped driver error',
      Object.assign(new QueryFailedError('SELECT 1', [], pgError('57P02')), { code: '57P02' }),
    ],
    [
      'happy eyeballs',
      new AggregateError([
        Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' }),
      ]),
    ],
  ])('blames PostgreSQL for %s', (_name, error) => {
    expect(unavailableDependency(error)).toBe('database');
  });

  it.each([
    [
      'retries exhausted',
      Object.assign(new Error('Reached the max retries per request limit'), {
        name: 'MaxRetriesPerRequestError',
      }),
    ],
    ['closed connection', new Error('Connection is closed.')],
  ])('blames Redis for %s', (_name, error) => {
    expect(unavailableDependency(error)).toBe('redis');
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a syntax error', pgError('42601')],
    ['a plain bug', new TypeError('x is undefined')],
  ])('blames nobody for %s', (_name, error) => {
    expect(unavailableDependency(error)).toBeUndefined();
  });
});

describe('toErrorResponse for outages', () => {
  it('answers 503 unavailable with Retry-After, naming no internals', () => {
    const response = toErrorResponse(
      pgError('57P01', 'terminating connection due to administrator command'),
      'r1',
    );
    expect(response.status).toBe(503);
    expect(response.headers).toEqual({ 'retry-after': '5' });
    expect(response.body.errors[0]).toMatchObject({ status: '503', code: 'unavailable' });
    expect(JSON.stringify(response.body)).not.toContain('administrator');
    expect(response.outage).toBe('database');
    expect(response.unexpected).toBeUndefined();
  });
});
