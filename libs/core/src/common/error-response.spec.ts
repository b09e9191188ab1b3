import { NotFoundException } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { toErrorResponse } from './error-response';

function pgError(code: string): DatabaseError {
  const error = new DatabaseError('boom', 0, 'error');
  error.code = code;
  return error;
}

describe('toErrorResponse', () => {
  it.each([
    ['23505', 409],
    ['23503', 422],
    ['22P02', 400],
  ])('maps database error %s to %i whether raised by pg or wrapped by TypeORM', (code, status) => {
    expect(toErrorResponse(pgError(code), 'r1').status).toBe(status);
    const wrapped = Object.assign(new QueryFailedError('SELECT 1', [], new Error('boom')), { code });
    expect(toErrorResponse(wrapped, 'r1').status).toBe(status);
  });

  it('answers an unexpected error with a generic 500 carrying the request id, never the message', () => {
    const response = toErrorResponse(new Error('relation "secret_table" does not exist'), 'req-42');
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('secret_table');
    expect(response.body.errors[0].detail).toContain('req-42');
  });

  it('names the path no route serves in quotes, without its query: it may end with a period', () => {
    const detail = (message: string) =>
      toErrorResponse(new NotFoundException(message), 'r1').body.errors[0].detail;
    expect(detail('Cannot GET /int/v1/locations.?limit=1')).toBe('No route GET "/int/v1/locations.".');
    expect(detail('Cannot find that')).toBe('Cannot find that');
  });
});
