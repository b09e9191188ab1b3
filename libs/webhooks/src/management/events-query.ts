import { ApiError } from '@wharf/core';
import { EVENT_ID, eventIdAt } from '../outbox/event-id';
import type { EventQuery } from '../store/events.store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME = /^[A-Za-z0-9_.*-]{1,128}$/;
/** Above every event id (`~` sorts after the base-36 digits). */
const PAST_NEWEST = 'evt_~';
/**
 * An event's id carries the time its writer read, its created_at the time its statement was given or read:
 * the bounds derived from created_at filters (to prune partitions) allow this much between the two.
 */
const CLOCK_MARGIN_MS = 60_000;
export const DEFAULT_LIMIT = 30;

export const EVENT_QUERY_PARAMETERS = [
  'limit',
  'cursor',
  'event',
  'event_in',
  'data_id',
  'created_at_gte',
  'created_at_lte',
  'delivery_success',
  'webhook_endpoint_uuid',
] as const;

const bad = (parameter: string, detail: string) => ApiError.badParameter(parameter, detail);

function one(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw bad(name, `${name} may be given once.`);
  return value;
}

function time(query: Record<string, unknown>, name: string): Date | null {
  const raw = one(query, name);
  if (raw === undefined) return null;
  const date = new Date(raw);
  if (!/^\d{4}-\d\d-\d\d/.test(raw) || Number.isNaN(date.getTime()))
    throw bad(name, `${name} must be an ISO 8601 time, such as 2026-01-31T12:00:00Z.`);
  return date;
}

/** The events API's query string as a store query of `company`; a 400 naming the parameter otherwise. */
export function readEventQuery(company: string, query: Record<string, unknown>): EventQuery {
  for (const name of Object.keys(query)) {
    if (!(EVENT_QUERY_PARAMETERS as readonly string[]).includes(name))
      throw bad(name, `${name} is not a filter of events; use ${EVENT_QUERY_PARAMETERS.join(', ')}.`);
  }
  const limitText = one(query, 'limit') ?? String(DEFAULT_LIMIT);
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100) throw bad('limit', 'limit must be 1 to 100.');
  const cursor = one(query, 'cursor');
  if (cursor !== undefined && !EVENT_ID.test(cursor))
    throw bad('cursor', 'cursor must be the meta.next_cursor of a previous page.');
  const event = one(query, 'event');
  const eventIn = one(query, 'event_in');
  const names = [...(event !== undefined ? [event] : []), ...(eventIn?.split(',') ?? [])];
  for (const name of names) {
    if (!NAME.test(name))
      throw bad(event !== undefined ? 'event' : 'event_in', `"${name.slice(0, 64)}" is not an event name.`);
  }
  const dataId = one(query, 'data_id') ?? null;
  if (dataId !== null && (dataId.length < 1 || dataId.length > 255))
    throw bad('data_id', 'data_id must be the id of a record.');
  const endpoint = one(query, 'webhook_endpoint_uuid') ?? null;
  if (endpoint !== null && !UUID.test(endpoint))
    throw bad('webhook_endpoint_uuid', 'webhook_endpoint_uuid must be a uuid.');
  const success = one(query, 'delivery_success');
  if (success !== undefined && success !== 'true' && success !== 'false')
    throw bad('delivery_success', 'delivery_success must be true or false.');
  const createdFrom = time(query, 'created_at_gte');
  const createdTo = time(query, 'created_at_lte');
  const upper = createdTo ? eventIdAt(createdTo.getTime() + CLOCK_MARGIN_MS + 1) : PAST_NEWEST;
  return {
    company,
    below: cursor !== undefined && cursor < upper ? cursor : upper,
    atOrAbove: createdFrom ? eventIdAt(Math.max(0, createdFrom.getTime() - CLOCK_MARGIN_MS)) : 'evt_',
    names: names.length ? names : null,
    dataId,
    createdFrom,
    createdTo,
    endpoint,
    deliverySuccess: success === undefined ? null : success === 'true',
    limit,
  };
}
