import { HttpException } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { Dependency, unavailableDependency } from './outage';
import { ApiError, ErrorObject, errorObject } from './api-error';

export interface ErrorResponse {
  status: number;
  body: { errors: ErrorObject[] };
  headers: Record<string, string>;
  /** Only for unexpected errors: logged with the stack, never sent. */
  unexpected?: unknown;
  /** The backing service whose outage caused a 503 (reported to the outage monitor, not logged per request). */
  outage?: Dependency;
}

/** Seconds a client should wait before retrying while a backing service is down. */
export const OUTAGE_RETRY_AFTER_S = 5;

/** The same 503 as an exception, for code that decides on its own that a service is missing. */
export function unavailableError(dependency: Dependency): ApiError {
  const response = unavailable(dependency);
  return new ApiError(503, response.body.errors, response.headers);
}

/** 503 with Retry-After: the request was fine, a service it needs is not reachable right now. */
export function unavailable(dependency: Dependency): ErrorResponse {
  const what = dependency === 'database' ? 'The database' : 'Redis';
  return {
    status: 503,
    body: {
      errors: [
        errorObject(503, `${what} is temporarily unavailable; retry in ${OUTAGE_RETRY_AFTER_S} s.`, {
          meta: { dependency },
        }),
      ],
    },
    headers: { 'retry-after': String(OUTAGE_RETRY_AFTER_S) },
    outage: dependency,
  };
}

function fromDatabase(error: { code?: string; column?: string; detail?: string }): ErrorResponse | undefined {
  switch (error.code) {
    case '23505':
      return single(409, 'A record with the same unique value already exists.');
    case '23503':
      return single(422, 'The record refers to a record that does not exist.');
    case '23502':
      return single(422, `${error.column ?? 'A required field'} is required.`);
    case '22001':
      return single(422, 'A value is too long.');
    case '22P02':
    case '22003':
    case '22007':
    case '22008':
      return single(400, 'A value has the wrong format.');
    default:
      return undefined;
  }
}

function single(status: number, detail: string): ErrorResponse {
  return { status, body: { errors: [errorObject(status, detail)] }, headers: {} };
}

/** 405 with `Allow`: the path is served, not with this method. */
export function methodNotAllowed(method: string, url: string, allow: string[]): ErrorResponse {
  const path = url.split('?')[0];
  return {
    status: 405,
    body: {
      errors: [errorObject(405, `${method} is not served at ${path}; it answers ${allow.join(', ')}.`)],
    },
    headers: { allow: allow.join(', ') },
  };
}

/** The detail of a 404 for a path no route serves: the path is quoted, as it may end with a period. */
export function noRouteDetail(method: string, url: string): string {
  return `No route ${method} ${JSON.stringify(url.split('?')[0])}.`;
}

/** Maps anything thrown while handling a request to the JSON:API error format. */
export function toErrorResponse(error: unknown, requestId: string): ErrorResponse {
  if (error instanceof ApiError) {
    return { status: error.getStatus(), body: { errors: error.errors }, headers: error.headers };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const message =
      typeof response === 'object' && response && 'message' in response
        ? ([] as string[]).concat((response as { message: string | string[] }).message).join('; ')
        : error.message;
    if (status >= 500) return internal(error, requestId);
    const noRoute = status === 404 ? /^Cannot ([A-Z]+) (\/.*)$/s.exec(message) : null;
    return single(status, noRoute ? noRouteDetail(noRoute[1], noRoute[2]) : message);
  }
  // Through TypeORM errors arrive wrapped; statements sent on pg's own clients raise DatabaseError.
  if (error instanceof QueryFailedError || error instanceof DatabaseError) {
    const mapped = fromDatabase(error as { code?: string });
    if (mapped) return mapped;
  }
  const dependency = unavailableDependency(error);
  if (dependency) return unavailable(dependency);
  const fastify = error as { statusCode?: number; message?: string };
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return single(fastify.statusCode, fastify.message ?? 'Bad request.');
  }
  return internal(error, requestId);
}

function internal(error: unknown, requestId: string): ErrorResponse {
  return {
    status: 500,
    body: {
      errors: [
        errorObject(
          500,
          `Something went wrong on our side. Quote request id ${requestId} when reporting it.`,
          { meta: { request_id: requestId } },
        ),
      ],
    },
    headers: {},
    unexpected: error,
  };
}
