/**
 * Events about delivery itself, emitted through the outbox like any other and delivered by the same
 * pipeline, to the endpoints that subscribe to them by name (`*` is the platform's data events only, so
 * no receiver written before them gets them unasked). Each names the endpoint it is about in
 * `data.webhook_endpoint_uuid`: the fan-out never sends
 * an endpoint an operational event about itself (it is the one failing, or its own recovery is news only
 * to the others), and a delivery of an operational event that fails for good makes no delivery.exhausted,
 * so two failing endpoints cannot feed each other events.
 */
export const OPERATIONAL_EVENTS = [
  'endpoint.disabled',
  'endpoint.enabled',
  'endpoint.throttled',
  'endpoint.unthrottled',
  'endpoint.recovered',
  'delivery.exhausted',
] as const;
export type OperationalEvent = (typeof OPERATIONAL_EVENTS)[number];

/** The names as a SQL array literal (constants, never input): statements stay one fixed text. */
export const OPERATIONAL_EVENTS_SQL = `'{${OPERATIONAL_EVENTS.join(',')}}'::text[]`;

export const isOperational = (name: string): boolean =>
  (OPERATIONAL_EVENTS as readonly string[]).includes(name);

/**
 * Whether an endpoint subscribed to `events` gets the event `name`: by its name, or by `*` unless it is an
 * operational event. The SQL form takes expressions (the jsonb array of names, the event's name, whether it
 * is operational); fan-out and the routing view use it, the filter test the TypeScript form beside it.
 */
export const subscribes = (events: readonly string[], name: string): boolean =>
  events.includes(name) || (events.includes('*') && !isOperational(name));
export const subscribesSql = (events: string, name: string, operational: string): string =>
  `(${events} ? ${name} OR ${events} ? '*' AND NOT ${operational})`;

/** Why an endpoint was disabled, as endpoint.disabled says. */
export type DisabledReason = 'gone_410' | 'failing_since' | 'manual';
