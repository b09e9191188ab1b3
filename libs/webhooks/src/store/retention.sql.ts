/*
 * What outbox retention asks of the deliveries (see stages/lifecycle/retention.ts). An events partition is
 * a range of event ids ($1 its start, null when open, $2 its end); the default partition's events are named
 * one by one ($1). A pending delivery (waiting, admitted, retrying) keeps its event; a failed one is kept for
 * recover only as long as its event is, and goes with it.
 */

import { isIn, pending } from './delivery-state';

const inRange = `($1::text IS NULL OR d.event_id >= $1) AND d.event_id < $2`;

/** Whether a pending delivery refers to an event of the range. */
export const PENDING_IN_EVENT_RANGE = `
SELECT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE ${inRange} AND ${pending('d')}) AS pending`;

/** The failed deliveries of the range's events, deleted with their events' partition. */
export const DROP_FAILED_IN_EVENT_RANGE = `
DELETE FROM webhook_deliveries d WHERE ${inRange} AND ${isIn('d', 'failed')}`;

/** Which of these events a pending delivery refers to. */
export const PENDING_EVENTS_OF = `
SELECT DISTINCT d.event_id FROM webhook_deliveries d WHERE d.event_id = ANY($1::text[]) AND ${pending('d')}`;

/** The failed deliveries of these events, deleted with them. */
export const DROP_FAILED_OF_EVENTS = `
DELETE FROM webhook_deliveries d WHERE d.event_id = ANY($1::text[]) AND ${isIn('d', 'failed')}`;
